"""`python -m hermes_cli` == `hermes`."""

from hermes_cli.entry import main

main()
