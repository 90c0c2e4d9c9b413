"""The `hermes` console script: the REPL, a one-shot run and the ACP server are handed to
the warm start server when there is one (hermes_cli/launch/); the rest, and a run no
server takes, starts here as before."""

from __future__ import annotations

import os
import sys


def main() -> None:
    from hermes_cli.launch.argv import wanted

    if wanted(sys.argv[1:], os.environ):  # type: ignore[arg-type]
        from hermes_cli.launch import client  # sockets and signals only for a warm start

        client.run(sys.argv[1:])  # returns only when this run goes on cold
    from hermes_cli.app import main as cold

    cold()
