"""`python -m algspec.cli`: the `algspec` command."""

from algspec.cli import main

main()
