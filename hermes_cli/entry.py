"""The `hermes` console script: a one-shot run or the ACP server is handed to the warm
server when there is one (hermes_cli/launch/), everything else starts here as before."""

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
