"""`python -m algspec.generators`: print the reference tables of docs/generators.md."""

from algspec.generators import clrs_table, markdown_table
from algspec.generators.families import families_table

print(markdown_table())
print()
print(clrs_table())
print()
print(families_table())
