"""hermes_cli.slash.dispatch: the REPL's slash commands: the dispatcher and one module per family."""
