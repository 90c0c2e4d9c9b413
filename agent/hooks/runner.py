"""Running one command hook and reading its answer (docs/HOOKS.md).

The command runs through `/bin/sh -c` in the session's working directory, inside the
tool sandbox unless its entry says `sandbox: host` (agent/hooks/confine.py: `confine`;
a failure that reads like the sandbox's refusal says so and names `sandbox: host`), with
the environment tools get (agent/sandbox/env.py: PATH, HOME,
locale, TERM and `sandbox.env_allow`; never a provider key or the database URL) plus
HERMES_PROJECT_DIR and HERMES_SESSION_ID. It reads one JSON object on stdin. It runs in a
process group of its own: at its timeout the whole group is killed and the session goes
on with a warning. Nothing a hook does can raise out of here.

The answer (`Answer`): exit 0 = go on (stdout is context for the events that take it,
or a JSON object, below); exit 2 = block, stderr is the reason; any other exit, a
timeout or a command that cannot start = a warning for the user, and the session goes
on. A JSON object on stdout (exit 0) is read as Claude Code's hook output:
`{"decision": "block", "reason": ...}` blocks; `{"continue": false, "stopReason": ...}`
blocks; `hookSpecificOutput.permissionDecision: "deny"` (+ `permissionDecisionReason`)
blocks a tool call; `hookSpecificOutput.additionalContext` is context; `systemMessage` is
shown to the user. Nothing in it can allow what the rules, plan mode or the sandbox refuse.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from agent.hooks.config import Command
from agent.sandbox.backend import SetupError
from agent.sandbox.env import tool_env

REFUSALS = re.compile(r"Permission denied|Read-only file system|Operation not permitted|"
                      r"No such file or directory|Network is unreachable")
HINT = ("; it ran in the tool sandbox (the workspace, and the files its command names): if "
        "it must reach the rest of your home or the host, add `sandbox: host` to its entry "
        "(docs/HOOKS.md)")

BLOCK = 2
KEPT = 10_000  # characters of a hook's stdout/stderr that are used
GRACE = 2.0  # seconds to collect a killed group's pipes
POLL = 0.1  # seconds between looks at the turn's cancel token while a hook runs


@dataclass(frozen=True)
class Answer:
    """What one hook said: block (and why), context for the model, warnings for the user."""

    blocked: bool = False
    reason: str = ""
    context: str = ""
    warnings: tuple[str, ...] = ()
    seconds: float = 0.0


@dataclass
class Environment:
    """What every hook process of a session gets besides its payload."""

    cwd: Path
    allow: tuple[str, ...] = ()  # sandbox.env_allow
    extra: dict[str, str] = field(default_factory=dict)

    def for_process(self, session_id: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        env = tool_env(os.environ if environ is None else environ, self.allow)
        env.update(self.extra)
        env.update(HERMES_PROJECT_DIR=str(self.cwd), HERMES_SESSION_ID=session_id)
        return env


Confine = contextlib.AbstractContextManager[Callable[[], None] | None]



@dataclass(frozen=True)
class Place:
    """Where one hook runs (agent/hooks/confine.py): `confine()` a fresh context yielding
    the sandbox's pre-exec step (None: on the host); `reset()` ends the sandbox's session
    so the next `confine()` starts a new one (a start that failed twice)."""

    confine: Callable[[], Confine]
    reset: Callable[[], None]


def run(command: Command, payload: dict[str, object], env: dict[str, str], cwd: Path,  # noqa: PLR0913
        cancelled: Callable[[], bool] | None = None, place: Place | None = None) -> Answer:
    """Run one hook with `payload` on stdin; never raises. `cancelled()` true (the user
    cancelled the turn) stops it as its timeout would, without a warning. `place`: the
    sandbox (None: on the host); a failed sandboxed start is tried again as the
    terminal's is (agent/tools/terminal.py `_started`): once, then in a fresh session."""
    started = time.monotonic()
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    name = _short(command.command)
    sandboxed = False
    for attempt in range(3):
        try:
            with place.confine() if place is not None else contextlib.nullcontext() as preexec:
                sandboxed = preexec is not None
                proc = subprocess.Popen(["/bin/sh", "-c", command.command], stdin=subprocess.PIPE,  # noqa: S603
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(cwd),
                                        env=env, start_new_session=True, close_fds=True,
                                        preexec_fn=preexec)
            break
        except OSError as exc:
            return Answer(warnings=(f"hook `{name}` could not start: {exc.strerror or exc}",))
        except (subprocess.SubprocessError, SetupError) as exc:
            if place is None or attempt == 2:
                return Answer(warnings=(f"hook `{name}` could not start in the tool sandbox "
                                        f"({exc}){HINT}",))
            if attempt == 1:
                place.reset()
    deadline = started + command.timeout
    sending: bytes | None = data
    while True:  # in slices, so that a cancelled turn does not wait for the timeout
        try:
            left = max(0.0, min(POLL, deadline - time.monotonic()))
            out, err = proc.communicate(sending, timeout=left)
            break
        except subprocess.TimeoutExpired:
            sending = None  # the input goes on being written; it is given once
            stop = cancelled is not None and cancelled()
            if stop or time.monotonic() >= deadline:
                _kill(proc)
                said = () if stop else (f"hook `{name}` did not finish within "
                                        f"{command.timeout:g}s and was stopped; the session goes on",)
                return Answer(warnings=said, seconds=time.monotonic() - started)
    seconds = time.monotonic() - started
    stdout, stderr = _text(out), _text(err)
    if proc.returncode == BLOCK and sandboxed and stderr.startswith("/bin/sh:") \
            and REFUSALS.search(stderr.splitlines()[0]):
        proc.returncode = 1  # the shell's own error (exit 2 too), not a decision: a failure
    if proc.returncode == BLOCK:
        return Answer(blocked=True, reason=stderr.strip() or f"(hook `{name}` gave no reason)",
                      seconds=seconds)
    if proc.returncode != 0:
        lines = stderr.strip().splitlines()
        why = f": {lines[0]}" if lines else ""
        refused = next((line for line in lines if REFUSALS.search(line)), "")
        if sandboxed and refused:  # the sandbox may be why: say so, and the way out
            why = f": {refused.strip()}{HINT}"
        return Answer(warnings=(f"hook `{name}` failed (exit {proc.returncode}){why}",), seconds=seconds)
    return replace(read_stdout(stdout, name), seconds=seconds)


def read_stdout(stdout: str, name: str) -> Answer:
    """Exit 0: plain text is context; a JSON object is Claude Code's hook output."""
    text = stdout.strip()
    if not text.startswith("{"):
        return Answer(context=text)
    try:
        data = json.loads(text)
    except ValueError:
        return Answer(context=text)
    if not isinstance(data, dict):
        return Answer(context=text)
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    warnings = tuple(str(data["systemMessage"]) for _ in [0] if data.get("systemMessage"))
    context = specific.get("additionalContext")
    context = context if isinstance(context, str) else ""
    reason = ""
    blocked = False
    if data.get("decision") == "block":
        blocked, reason = True, str(data.get("reason") or "")
    elif data.get("continue") is False:
        blocked, reason = True, str(data.get("stopReason") or data.get("reason") or "")
    elif specific.get("permissionDecision") == "deny":
        blocked, reason = True, str(specific.get("permissionDecisionReason") or "")
    if blocked and not reason.strip():
        reason = f"(hook `{name}` gave no reason)"
    return Answer(blocked=blocked, reason=reason.strip(), context=context.strip(), warnings=warnings)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the hook's whole process group and reap it (pipes collected with a deadline)."""
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    try:
        proc.communicate(timeout=GRACE)
    except (subprocess.TimeoutExpired, OSError, ValueError):
        for stream in (proc.stdout, proc.stderr, proc.stdin):
            if stream is not None:
                stream.close()
        proc.wait(timeout=GRACE)


def _text(raw: bytes | None) -> str:
    text = (raw or b"").decode("utf-8", errors="replace")
    return text if len(text) <= KEPT else text[:KEPT] + "\n[... cut]"


def _short(command: str) -> str:
    line = " ".join(command.split())
    return line if len(line) <= 60 else line[:57] + "..."
