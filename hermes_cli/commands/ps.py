"""`hermes ps`: the background runs (`hermes -q --bg`, `/bg`) from the store: id, state,
age, cost. Any process sees them (frontend/autonomy/background.py)."""

from __future__ import annotations

import typer

from hermes_cli.commands.sessions import _store

# Function-level imports below: the store's module loads when the command runs.


def age_text(seconds: float) -> str:
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m"
    if whole < 86400:
        return f"{whole // 3600}h{(whole % 3600) // 60:02d}m"
    return f"{whole // 86400}d"


def run_ps(limit: int) -> int:
    from agent.usage import usd
    from frontend.autonomy.background import runs

    found = runs(_store(), limit)
    if not found:
        typer.echo('No background runs. Start one with `hermes -q "..." --bg` or /bg in the REPL.')
        return 0
    typer.echo(f"{'ID':<24} {'STATE':<8} {'AGE':>6} {'COST':>10}  PROMPT")
    for run in found:
        cost = "unknown" if run.cost is None else usd(run.cost)
        title = " ".join(run.title.split())[:50]
        typer.echo(f"{run.id:<24} {run.state:<8} {age_text(run.age):>6} {cost:>10}  {title}")
    return 0
