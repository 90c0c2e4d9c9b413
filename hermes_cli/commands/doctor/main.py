"""`hermes doctor`: gather the checks, run them concurrently, print the screen, exit
0 when healthy and 1 otherwise (report.py says which states fail)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from agent.errors import ConfigError
from frontend.config.provider_choice import resolve_provider
from frontend.config.settings import Settings, hermes_home, load_settings
from hermes_cli.commands.doctor import local, provider
from hermes_cli.commands.doctor.report import (
    FAIL,
    INFO,
    OK,
    Check,
    Result,
    exit_code,
    render,
    run_all,
)

#: the gateway's platform probes (gateway/chat/probe.py), handed in by hermes_cli/app.py
PlatformProbes = Callable[[Settings], list[tuple[str, str, Callable[[], tuple[bool, str]]]]]


def _config() -> tuple[Settings | None, Result]:
    """Read .env and config.yaml."""
    home = hermes_home()
    try:
        settings = load_settings(home)
    except ConfigError as exc:
        return None, Result("config", FAIL, exc.message, exc.hint or "fix that file")
    files = [p.name for p in (home / "config.yaml", home / ".env") if p.exists()]
    said = " and ".join(files) + (" parse" if len(files) > 1 else " parses") if files else f"no config.yaml or .env in {home} yet"
    if settings.warnings:
        return settings, Result("config", FAIL, f"{said}, but: {settings.warnings[0]}"
                                        + (f" (+{len(settings.warnings) - 1} more)"
                                           if len(settings.warnings) > 1 else ""),
                                        "fix or remove that setting (`hermes config list`)")
    return settings, Result("config", OK if files else INFO, said)


def provider_check(settings: Settings) -> Result:
    """The provider's key, where it was read, and whether the provider accepts it."""
    try:
        choice = resolve_provider(settings)
    except ConfigError as exc:
        return Result("provider", FAIL, exc.message,
                      "run `hermes setup`" + (f", or {exc.hint}" if exc.hint else ""))
    return provider.check(choice, provider.origins(settings, choice, os.environ))


def platform_checks(settings: Settings, probes: PlatformProbes) -> list[Check]:
    found = probes(settings)
    if not found:
        return [Check("chat", lambda: Result("chat", INFO, "no chat platform configured"))]
    checks = []
    for name, var, probe in found:
        def run(name: str = name, var: str = var, probe: Any = probe) -> Result:
            try:
                ok, said = probe()
            except Exception as exc:  # noqa: BLE001 - unreachable, not JSON: one line each
                return Result(f"chat {name}", FAIL, f"unreachable: {exc}",
                              f"check gateway.{name}.base_url and the network")
            return Result(f"chat {name}", OK if ok else FAIL, said,
                          f"put a valid {var} in HERMES_HOME/.env or the environment")
        checks.append(Check(f"chat {name}", run, timeout=30.0))
    return checks


def run(probes: PlatformProbes, write: Callable[[str], None] = print) -> int:
    """The whole doctor; its exit code."""
    started = time.monotonic()
    settings, config = _config()
    checks = [Check("versions", local.versions), Check("warm start", local.warm_start, 5.0),
              Check("gateway", lambda: local.gateway(settings), 10.0)]
    if settings is not None:
        checks[:0] = [
            Check("provider", lambda: provider_check(settings), provider.DEADLINE),
            Check("store", lambda: local.store(settings), 30.0),
            Check("sandbox", lambda: local.sandbox(settings), 30.0),
            Check("mcp", lambda: local.mcp_servers(settings), 60.0),
        ]
        try:
            checks[4:4] = platform_checks(settings, probes)
        except ConfigError as exc:
            wrong = Result("chat", FAIL, exc.message, exc.hint)
            checks.insert(4, Check("chat", lambda: wrong))
    results = [config, *run_all(checks)]
    home = settings.home if settings is not None else hermes_home()
    render(results, write, f"hermes doctor: HERMES_HOME={home}",
           time.monotonic() - started)
    return exit_code(results)
