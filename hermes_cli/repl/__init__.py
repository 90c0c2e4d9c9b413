"""hermes_cli.repl.main: the interactive loop: the REPL, its prompt_toolkit app, prompt, input line handling, completion, keep-warm keeper and turn runner."""
