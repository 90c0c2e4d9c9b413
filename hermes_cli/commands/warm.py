"""`hermes warm status|stop`: the warm start servers of this user (hermes_cli/warm/)."""

from __future__ import annotations

import os
import time

import typer

warm_app = typer.Typer(help="The warm start: a resident process with the SDKs imported that "
                            "the REPL, `hermes -q` and `hermes acp` are forked from. It exits "
                            "after 15 idle minutes (`warm_idle_minutes` in config.yaml); "
                            "`warm: false` there or HERMES_WARM=0 turns it off (docs/WARM.md).")


def _servers() -> list[dict]:
    """The status of each server of this user that answers."""
    from hermes_cli.warm import place, protocol

    where = place.folder(os.environ)
    if where is None:
        return []
    found = [protocol.ask(path, "status") for path in sorted(where.glob("*.sock"))]
    return [answer for answer in found if answer]


def _installation(answer: dict) -> tuple[str, str]:
    """(source tree, interpreter) a server's status names."""
    interpreter, _, tree = str(answer.get("install", "?|?")).partition("|")
    return tree, interpreter


@warm_app.command("status")
def warm_status() -> None:
    """The running servers: each one's installation (its path), pid, runs served, memory
    and idle time; which one serves this installation."""
    from hermes_cli.warm import place, settings

    current = place.socket_path(dict(os.environ))
    found = _servers()
    failed = current.with_suffix(".log") if current is not None else None
    if failed is not None and failed.exists():
        last = failed.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
        typer.echo(f"the warm start server of this installation failed: {' '.join(last)}"
                   f" (the whole report: {failed}; `hermes warm stop` clears it)")
    if not found:
        off = not settings.read(dict(os.environ)).on
        typer.echo("no warm start server is running" + (
            " (the warm start is off here: HERMES_WARM=0 or `warm: false`)" if off
            else "; the next `hermes` run (REPL, -q or acp) starts one"))
        return
    for answer in found:
        tree, interpreter = _installation(answer)
        mark = " (this installation)" if answer.get("install") == place.installation() else ""
        age = time.time() - float(answer.get("started", time.time()))
        pss = int(answer.get("pss_kib", 0)) // 1024
        limit = settings.spoken(float(answer.get("idle_limit", 0)))
        runs = int(answer["runs"])
        typer.echo(f"pid {answer['pid']}{mark}: {tree} ({interpreter}): {runs} "
                   f"run{'s' if runs != 1 else ''} served, {answer['running']} running, {int(answer['rss_kib']) // 1024} MiB "
                   f"resident ({pss} MiB proportional), up {age / 60:.0f} min, idle "
                   f"{float(answer['idle_seconds']):.0f} s (exits after {limit} idle)")


@warm_app.command("stop")
def warm_stop(every: bool = typer.Option(False, "--all", help="stop every warm start server "
                                         "of this user, of every installation")) -> None:
    """Stop this installation's warm start server (`--all`: every one of this user's).
    Running sessions go on to their end; the next `hermes` run (REPL, -q or acp) starts
    a new server."""
    from hermes_cli.warm import place, protocol

    where = place.folder(os.environ)
    ours = place.installation()
    stopped = 0
    for path in sorted(where.glob("*.sock")) if where is not None else ():
        answer = protocol.ask(path, "status")
        if answer is not None and (every or answer.get("install") == ours):
            stopped += protocol.ask(path, "stop") is not None
    current = place.socket_path(dict(os.environ))
    logs = sorted(where.glob("*.log")) if where is not None and every else \
        [current.with_suffix(".log")] if current is not None else []
    for log in logs:
        log.unlink(missing_ok=True)  # a failure's report: the next run may try again
    which = "" if every else " of this installation"
    typer.echo(f"stopped {stopped} warm start server{'s' if stopped != 1 else ''}{which}")
