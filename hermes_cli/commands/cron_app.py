"""`hermes cron ...`: the Typer sub-app (imported at start: typer and the chat platforms' facts;
the work is in hermes_cli/commands/cron.py, imported when a cron command runs)."""

from __future__ import annotations

from typing import Annotated

import typer

from gateway.chat.platforms import PLATFORMS

CHAT_TARGETS = ", ".join(p.target for p in PLATFORMS)  # each chat platform's target form
cron_app = typer.Typer(help="Scheduled jobs: add, list, status, remove, run now, pause, "
                            "resume. They fire from a running `hermes gateway`.")


@cron_app.command("add")
def cron_add(  # noqa: PLR0913 - these are the job's settings
    schedule: Annotated[str, typer.Argument(help='"0 8 * * 1-5", "every 30m", "in 2h" or "at 2026-12-24 09:00".')],
    prompt: Annotated[str, typer.Argument(help="What the agent does at each run.")],
    deliver: Annotated[str, typer.Option("--deliver", help=f"none, origin (the chat it was asked in; from a terminal a file in HERMES_HOME/cron/output), file:PATH (inside this folder or a `sandbox.writable` one), {CHAT_TARGETS}.")] = "origin",
    name: Annotated[str | None, typer.Option("--name", help="A name (default: from the prompt).")] = None,
    model: Annotated[str | None, typer.Option("-m", "--model", help="The model, pinned for every run.")] = None,
    provider: Annotated[str | None, typer.Option("--provider", help="The provider, pinned.")] = None,
    max_usd: Annotated[float | None, typer.Option("--max-usd", help="Spend limit per run, USD.")] = None,
    daily_usd: Annotated[float | None, typer.Option("--daily-usd", help="Spend limit per day, USD (default: cron.daily_usd, 5).")] = None,
    workdir: Annotated[str | None, typer.Option("--workdir", help="Its workspace (default: HERMES_HOME/workspaces/cron-NAME).")] = None,
    skills: Annotated[str | None, typer.Option("--skills", help="Skills to preload: a,b.")] = None,
    tz: Annotated[str | None, typer.Option("--tz", help="Timezone (default: the machine's).")] = None,
    allow: Annotated[list[str] | None, typer.Option("--allow", help="A permission rule its runs may use without asking, e.g. 'terminal(git pull*)' (repeat).")] = None,
    off_peak: Annotated[bool, typer.Option("--off-peak", help="Move each run out of its model's peak price hours (the price data's time-of-day prices).")] = False,
    window: Annotated[str | None, typer.Option("--off-peak-window", help="Run only within HH:MM-HH:MM in the job's zone, e.g. 22:00-06:00.")] = None,
) -> None:
    """Add a job (refused at once when it cannot work: schedule, key, model, target)."""
    from hermes_cli.commands import cron

    if off_peak or window:  # the schedule's suffix (agent/cron/off_peak.py)
        schedule = f"{schedule} off-peak" + (f" {window}" if window else "")

    cron.add(schedule, prompt, deliver=deliver, name=name, model=model, provider=provider,
             max_usd=max_usd, daily_usd=daily_usd, workdir=workdir, skills=skills, tz=tz,
             allow=tuple(allow or ()))


@cron_app.command("list")
def cron_list(runs: Annotated[str | None, typer.Option("--runs", help="Show this job's latest runs.")] = None) -> None:
    """Jobs: next run, last result, cost so far."""
    from hermes_cli.commands import cron

    cron.list_jobs(runs)


@cron_app.command("status")
def cron_status() -> None:
    """Whether a scheduler (a running gateway) fires this home's jobs, the next fires, and
    each job's last run (its status, and why it failed)."""
    from hermes_cli.commands import cron

    cron.status()


@cron_app.command("remove")
def cron_remove(job: Annotated[str, typer.Argument(help="Id or name.")]) -> None:
    """Remove a job and its run history (its sessions stay)."""
    from hermes_cli.commands import cron

    cron.change("remove", job)


@cron_app.command("pause")
def cron_pause(job: Annotated[str, typer.Argument(help="Id or name.")]) -> None:
    """Stop a job firing until `resume`."""
    from hermes_cli.commands import cron

    cron.change("pause", job)


@cron_app.command("resume")
def cron_resume(job: Annotated[str, typer.Argument(help="Id or name.")]) -> None:
    """Fire again from now on (missed fires are not made up)."""
    from hermes_cli.commands import cron

    cron.change("resume", job)


@cron_app.command("run")
def cron_run(job: Annotated[str, typer.Argument(help="Id or name.")]) -> None:
    """Run a job now, here (its schedule is unchanged)."""
    from hermes_cli.commands import cron

    raise typer.Exit(cron.run_now(job))
