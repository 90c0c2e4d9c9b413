"""The checks that look at this machine: the store, the sandbox, MCP servers, the warm
start, a gateway, versions. Each returns Result lines (report.py); none changes anything
but the warm start's private socket folder (`hermes warm status` makes it too)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

from frontend.config.settings import Settings
from hermes_cli.commands.doctor.report import FAIL, INFO, OK, Result

# Function-level imports below: each check loads its subsystem (the store, the sandbox,
# the MCP SDK) when it runs, so the checks load in parallel and `doctor --help` is fast.

GATEWAY_URL = "http://127.0.0.1:8642/health"  # `hermes gateway`'s default address


def store(settings: Settings) -> Result:
    """The store opens and its migrations are the ones this hermes knows."""
    from frontend.config.store_setup import database_url

    url = database_url(settings)
    if url is None and not (settings.home / "state.db").exists():
        return Result("store", INFO, f"no {settings.home / 'state.db'} yet (made by the first session)")
    from frontend.setup import open_store

    opened = open_store(settings, read_only=True)
    try:
        if opened.handle.kind == "postgres":
            import memory.migrations_pg as migrations_pg

            applied = migrations_pg.applied_names(opened.handle)
            names = [name for name, _ in migrations_pg.MIGRATIONS]
        else:
            import memory.migrations as migrations

            applied = migrations.applied_names(opened.db)
            names = [name for name, _ in migrations.MIGRATIONS]
    finally:
        opened.close()
    where = "PostgreSQL" if url else str(settings.home / "state.db")
    newer = [a for a in applied if a not in names]
    if newer:
        return Result("store", FAIL, f"{where} has {len(newer)} migrations this hermes does not "
                                     f"know ({newer[-1]}): a newer hermes wrote it",
                      "upgrade hermes (pip install -U hermes-agent-cli) to the version that did")
    pending = [n for n in names if n not in applied]
    if pending:
        return Result("store", INFO, f"{where}: {len(pending)} migrations to apply (the next "
                                     "session applies them)")
    return Result("store", OK, f"{where} at the current migration ({names[-1]})")


def sandbox(settings: Settings) -> Result:
    """Start the tools' sandbox and run `true` inside it."""
    from agent.sandbox.backend import make_sandbox
    from frontend.config.sandbox_setup import sandbox_settings

    box = make_sandbox(sandbox_settings(settings, source="cli"), settings.home, Path.cwd())
    if not box.enabled:
        return Result("sandbox", INFO, f"off: {box.reason}")
    if not box.active:
        return Result("sandbox", FAIL, f"cannot start: {box.reason}",
                      "use a kernel that has it, or run without one: --no-sandbox or "
                      "`sandbox: {enabled: false}` (commands then run unconfined)")
    try:
        with box.launch(Path.cwd()) as confine:
            done = subprocess.run(["true"], preexec_fn=confine, check=False, timeout=10)  # noqa: S603,S607,PLW1509 - the sandbox's own pre-exec
    finally:
        box.close()
    if done.returncode != 0:
        return Result("sandbox", FAIL, f"a command in it exited {done.returncode}",
                      "see docs/SANDBOX.md; --no-sandbox runs tools unconfined")
    return Result("sandbox", OK, f"started; network: {box.policy.network}")


def mcp_servers(settings: Settings) -> list[Result]:
    """Start every enabled MCP server, as a session would, and stop it."""
    from agent.mcp.config import parse_servers

    servers = [s for s in parse_servers(settings.raw.get("mcp_servers")) if s.enabled]
    if not servers:
        return [Result("mcp", INFO, "no MCP servers configured")]
    from agent.mcp.frozen import McpTools
    from agent.mcp.hub import McpHub

    hub = McpHub()
    try:
        tools = McpTools(hub, tuple(servers))
        warnings = tools.freeze()
        frozen = tools.tools()
        out = []
        for s in servers:
            state = hub.servers[s.name].status if s.name in hub.servers else "not started"
            count = sum(t.name.startswith(f"mcp__{s.name}__") for t in frozen)
            said = [w for w in warnings if s.name in w]
            out.append(Result(f"mcp {s.name}", OK, f"ready, {count} tools") if state == "ready"
                       else Result(f"mcp {s.name}", FAIL, f"{state}: {' '.join(said)[:160]}",
                                   f"`hermes mcp test {s.name}` shows its error; fix its "
                                   "command or url in config.yaml"))
        return out
    finally:
        hub.close()


def warm_start() -> Result:
    """Whether a warm start server of this installation is running (information)."""
    from hermes_cli.warm import place, protocol, settings

    env = dict(os.environ)
    chosen = settings.read(env)
    if not chosen.on:
        return Result("warm start", INFO, "off (HERMES_WARM=0 or `warm: false`; docs/WARM.md)")
    path = place.socket_path(env)
    answer = protocol.ask(path, "status", timeout=2.0) if path is not None else None
    limit = settings.spoken(chosen.idle_seconds)
    if answer is None:
        return Result("warm start", INFO, "no server of this installation running "
                                          f"(the next `hermes` starts one; it exits after "
                                          f"{limit} idle)")
    return Result("warm start", INFO, f"running (pid {answer.get('pid')}, "
                                      f"{answer.get('runs')} runs served, exits after "
                                      f"{limit} idle)")


def gateway(settings: Settings | None = None, url: str = GATEWAY_URL) -> Result:
    """Whether a gateway's scheduler runs this home's jobs (its lease row in the store,
    docs/CRON.md: right on PostgreSQL and for a gateway on any port), else whether a
    gateway answers on the default address (information either way)."""
    import httpx

    workers = _schedulers(settings) if settings is not None else []
    if workers:
        shown = ", ".join(f"{worker} (seen {seconds:.0f} s ago)" for worker, seconds in workers)
        return Result("gateway", INFO, f"running: its scheduler fires this home's jobs "
                                       f"(worker {shown})")
    try:
        answer = httpx.get(url, timeout=2.0)
    except httpx.HTTPError:
        return Result("gateway", INFO, "none running for this home (scheduled jobs fire only "
                                       "while `hermes gateway` runs)")
    return Result("gateway", INFO, f"answering at {url.rsplit('/', 1)[0]} "
                                   f"(HTTP {answer.status_code}), but no scheduler of this "
                                   "home (another HERMES_HOME's gateway?)")


def _schedulers(settings: Settings) -> list[tuple[str, float]]:
    """The live scheduler leases of this home's store (none when it has no store yet)."""
    from frontend.config.store_setup import database_url

    if database_url(settings) is None and not (settings.home / "state.db").exists():
        return []
    from frontend.setup import open_store
    from memory.cron import CronStore

    opened = open_store(settings, read_only=True)
    try:
        return CronStore(opened.handle).schedulers()
    except Exception:  # noqa: BLE001 - an old store without the leases table: none
        return []
    finally:
        opened.close()


def versions() -> Result:
    """hermes, Python and the provider SDKs' versions (read from their metadata)."""
    from importlib.metadata import PackageNotFoundError, version

    from agent.providers.models_list import SDK_DISTRIBUTIONS
    from hermes_cli import __version__

    parts = [f"hermes {__version__}", f"Python {platform.python_version()}"]
    for dist in (*SDK_DISTRIBUTIONS, "mcp"):
        try:
            parts.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{dist} missing")
    return Result("versions", INFO, ", ".join(parts) + f" ({sys.executable})")
