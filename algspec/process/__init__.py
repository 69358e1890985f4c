"""What every command shares with the operating system: results written whole
(`output_files`), memory checked up front (`memory_budget`), Ctrl-C held and
reported (`interrupts`), and algspec's own failures reported (`internal_error`)."""
