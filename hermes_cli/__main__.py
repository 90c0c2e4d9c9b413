"""`python -m hermes_cli` == `hermes`."""

from hermes_cli.app import main

main()
