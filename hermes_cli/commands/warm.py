"""`hermes warm status|stop`: the warm start servers of this user (hermes_cli/warm/)."""

from __future__ import annotations

import os
import time

import typer

warm_app = typer.Typer(help="The warm start: a resident process with the SDKs imported that "
                            "`hermes -q` and `hermes acp` are forked from (HERMES_WARM=0: off).")


def _servers() -> list[tuple[str, dict | None]]:
    from hermes_cli.warm import place, protocol

    where = place.folder(os.environ)
    if where is None:
        return []
    return [(path.name, protocol.ask(path, "status")) for path in sorted(where.glob("*.sock"))]


@warm_app.command("status")
def warm_status() -> None:
    """The running servers: pid, runs served, memory, idle time; which serves this install."""
    from hermes_cli.warm import place

    current = place.socket_path(dict(os.environ))
    found = [(name, answer) for name, answer in _servers() if answer]
    off = not place.enabled(dict(os.environ))
    failed = current.with_suffix(".log") if current is not None else None
    if failed is not None and failed.exists():
        last = failed.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
        typer.echo(f"the warm start server of this installation failed: {' '.join(last)}"
                   f" (the whole report: {failed}; `hermes warm stop` clears it)")
    if not found:
        typer.echo("no warm start server is running" + (" (HERMES_WARM=0 turns it off here)"
                                                         if off else "; the next `hermes -q` starts one"))
        return
    for name, answer in found:
        mark = " (this installation)" if current is not None and name == current.name else ""
        age = time.time() - float(answer.get("started", time.time()))
        typer.echo(f"pid {answer['pid']}{mark}: {answer['runs']} runs served, "
                   f"{answer['running']} running, {int(answer['rss_kib']) // 1024} MiB, "
                   f"up {age / 60:.0f} min, idle {float(answer['idle_seconds']):.0f} s")


@warm_app.command("stop")
def warm_stop() -> None:
    """Stop every warm start server of this user (the next `hermes -q` starts a new one)."""
    from hermes_cli.warm import place, protocol

    where = place.folder(os.environ)
    stopped = 0
    for path in sorted(where.glob("*.sock")) if where is not None else ():
        if protocol.ask(path, "stop") is not None:
            stopped += 1
    for log in sorted(where.glob("*.log")) if where is not None else ():
        log.unlink(missing_ok=True)  # a failure's report: the next run may try again
    typer.echo(f"stopped {stopped} warm start server{'s' if stopped != 1 else ''}")
