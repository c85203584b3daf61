"""The command line: `democratiza` and its subcommands (typer), in Spanish."""
