"""`python -m algspec.generators`: print the reference tables of docs/generators.md."""

from algspec.generators import clrs_table, markdown_table

print(markdown_table())
print()
print(clrs_table())
