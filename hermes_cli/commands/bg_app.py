"""`hermes ps` and `hermes logs` (the work: hermes_cli/commands/ps.py, logs.py; typer only
at start)."""

from __future__ import annotations

from typing import Annotated

import typer

# Function-level imports below: the commands' modules load when one runs.


def register(app: typer.Typer) -> None:
    @app.command("ps")
    def ps(limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many.")] = 20
           ) -> None:
        """Background runs (hermes -q --bg, /bg): id, state, age, cost."""
        from hermes_cli.commands.ps import run_ps

        raise typer.Exit(run_ps(limit))

    @app.command("logs")
    def logs(session_id: str,
             follow: Annotated[bool, typer.Option("-f", "--follow", help="Follow it until it ends.")] = False
             ) -> None:
        """A background run's transcript and answer."""
        from hermes_cli.commands.logs import run_logs

        raise typer.Exit(run_logs(session_id, follow))
