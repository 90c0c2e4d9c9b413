"""hermes_cli.commands: the `hermes` subcommands: sessions, models, mcp, inspect."""
