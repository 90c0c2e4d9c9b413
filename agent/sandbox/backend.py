"""The backend interface and the per-session `Sandbox` the tools consult.

A backend turns a `Policy` into something that confines a child process. Only Linux has
one (mount namespace + Landlock); a macOS Seatbelt backend would implement the same two
methods. Where none works, `Sandbox.active` is False, the reason is said once at start
(`startup_notice`), and the terminal asks approval for anything not plainly read-only.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agent.sandbox.env import tool_env
from agent.sandbox.policy import Policy, SandboxSettings, build_policy
from agent.sandbox.preexec_report import reporting


class SetupError(RuntimeError):
    """The session's confinement could not be started: nothing runs."""


class Confinement(Protocol):
    """A session's confinement as a backend made it (Linux: its namespaces)."""

    def alive(self) -> bool: ...
    def occupied(self) -> bool: ...  # a process besides the holder lives in it
    def damaged(self) -> str | None: ...  # a descriptor of it closed by someone else: why
    def close(self) -> None: ...


class Backend(Protocol):
    """`launching` and `preexec` take back the backend's own Confinement (Any: its class)."""

    name: str

    def unavailable(self) -> str | None:
        """None when this machine can enforce a policy, else why not (one line)."""

    def start_session(self, policy: Policy) -> Confinement:
        """The session's confinement, kept across its commands (`close()` ends it)."""

    def launching(self, session: Any) -> contextlib.AbstractContextManager[bool]:
        """Held while the child is started; yields what `preexec` must know."""

    def preexec(self, session: Any, cwd: str, born_inside: bool = False) -> Callable[[], None]:
        """A function run in the child between fork and exec that confines it."""


_backend: Backend | None = None
_reason: str | None = None
_probed = False


def backend() -> tuple[Backend | None, str | None]:
    """This machine's backend (probed once per process) and, if none, why."""
    global _backend, _reason, _probed
    if not _probed:
        _probed = True
        if sys.platform.startswith("linux"):
            from agent.sandbox.linux import LinuxBackend

            candidate = LinuxBackend()
            _reason = candidate.unavailable()
            _backend = None if _reason else candidate
        else:
            _reason = f"no sandbox backend for {sys.platform} yet"
    return _backend, _reason


@dataclass
class Sandbox:
    """One session's sandbox: its policy and, when the kernel can enforce it, a backend."""

    policy: Policy
    backend: Backend | None
    enabled: bool
    reason: str | None = None  # why not active (disabled by the user, or no backend)
    session: Confinement | None = None  # made on first use
    broke: str | None = None  # why the last session was ended broken (the terminal tells it once)

    @property
    def active(self) -> bool:
        return self.enabled and self.backend is not None

    @contextlib.contextmanager
    def launch(self, cwd: str | os.PathLike[str]) -> Iterator[Callable[[], None] | None]:
        """Around starting one command: yields its pre-exec confinement (the session's,
        started on first use), or None when there is no active sandbox."""
        if not self.active or self.backend is None:
            yield None
            return
        if self.session is not None and not self.session.alive():
            self.close()
        if self.session is not None and (why := self.session.damaged()) is not None:
            self.close()  # closes only what is still its own; the next launch starts afresh
            self.broke = why
            raise SetupError(f"the sandbox session broke: {why}; it was ended, a new one "
                             "starts with the next command")
        if self.session is None:
            try:
                self.session = self.backend.start_session(self.policy)
            except OSError as exc:
                raise SetupError(str(exc)) from exc
        with self.backend.launching(self.session) as born_inside, \
                reporting(self.backend.preexec(self.session, str(cwd), born_inside)) as confine:
            yield confine  # a failure in the child comes back with its cause

    def close(self) -> None:
        """End the session's confinement (its namespaces and every process in them)."""
        held, self.session = self.session, None
        if held is not None:
            held.close()

    def environment(self, environ: dict[str, str] | None = None) -> dict[str, str]:
        """The tools' environment: the allowlist (agent/sandbox/env.py), even with the
        sandbox off; TMPDIR=/tmp when the session has a private /tmp; the proxy variables
        for `network: public` (call it once the session is started: `launch`)."""
        source = dict(os.environ if environ is None else environ)
        env = tool_env(source, self.policy.env_allow)
        if self.active:
            env["TMPDIR"] = "/tmp"
            egress = getattr(self.session, "egress", None)
            if egress is not None:  # network: public - the session's way out
                env.update(egress.environment())
        elif "TMPDIR" in source:
            env["TMPDIR"] = source["TMPDIR"]
        return env


def make_sandbox(settings: SandboxSettings, hermes_home: Path, workspace: Path) -> Sandbox:
    policy = build_policy(settings, hermes_home, workspace)
    if not settings.enabled:
        return Sandbox(policy, None, False, "turned off (--no-sandbox or `sandbox: {enabled: false}`)")
    found, reason = backend()
    return Sandbox(policy, found, True, reason)


class BoxState(Protocol):
    """Where a session keeps its sandboxes (agent.tools.registry.ToolState)."""

    sandbox: Sandbox | None
    plan_sandbox: Sandbox | None  # plan mode's read-only one (agent/permissions/plan.py)


class BoxHolder(Protocol):
    """What the sandbox builders read of a tool context (agent.tools.registry.ToolContext,
    which imports this module)."""

    @property
    def home(self) -> Path: ...
    @property
    def cwd(self) -> Path: ...
    @property
    def sandbox(self) -> SandboxSettings | None: ...
    @property
    def state(self) -> BoxState: ...


def sandbox_for(ctx: BoxHolder) -> Sandbox:
    """The session's sandbox, built on first use and kept in `ctx.state.sandbox`.
    Settings come from `ctx.sandbox` (a SandboxSettings; default: on)."""
    box = ctx.state.sandbox
    if box is None:
        settings = getattr(ctx, "sandbox", None) or SandboxSettings()
        box = ctx.state.sandbox = make_sandbox(settings, Path(ctx.home), Path(ctx.cwd))
    return box


def startup_notice(settings: SandboxSettings) -> str | None:
    """The one line a front end prints at start when tools run without a sandbox."""
    if not settings.enabled:
        return ("warning: the tool sandbox is OFF (--no-sandbox): commands can write anywhere "
                "and read your secrets; only the approval prompts stand in the way")
    found, reason = backend()
    if found is None:
        return (f"warning: no tool sandbox on this machine ({reason}); every command that is not "
                "plainly read-only will need approval")
    return None
