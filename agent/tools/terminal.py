"""terminal: run a bash command in the session's persistent working directory.

Each call is a fresh `bash -c` (no shell state but the directory carries over): an EXIT
trap writes the final `$PWD` to an inherited pipe, which becomes `ctx.state.cwd`. stdin
is closed; the command runs in its own process group, and a timeout kills the whole group
(SIGTERM, then SIGKILL), background children included. Output (stdout and stderr
interleaved) is read from a pipe until the command itself exits (agent/tools/
term_output.py): nothing comes back through a path the command could replace, and a
background process that keeps the output open cannot hang the call; long output keeps
its head and tail.

The command runs inside the session's sandbox (agent/sandbox): writes only beneath the
workspace, the session's private /tmp and configured roots; secret locations hidden; an
allowlisted environment; the session's own PID (and network) namespace. Without a working sandbox, anything not plainly read-only needs
approval.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.errors import ToolError
from agent.permissions.plan import PLAN, readonly_sandbox
from agent.sandbox import arming
from agent.sandbox.backend import Sandbox, SetupError, sandbox_for
from agent.sandbox.readonly import plainly_read_only
from agent.tools import term_changes, term_left, term_output
from agent.tools._common import opt_bool, opt_int, session_cwd
from agent.tools.big_deletes import big_deletion
from agent.tools.danger import dangerous_reason
from agent.tools.registry import Tool, ToolContext, ToolState, require

if TYPE_CHECKING:
    from agent.cancel import CancelToken

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 3600
MAX_OUTPUT = term_output.MAX_OUTPUT
MAX_OUTPUT_FILE = 200 * 1024 * 1024  # a command writing more is killed (disk safety)
KILL_GRACE = 2.0
REAP_DEADLINE = 10.0  # after SIGKILL: only a process stuck in the kernel takes longer
POLL = 0.1  # seconds between checks of the cancel token and the output size
ESCALATE = "run OUTSIDE the sandbox: full access to your files"
_BLOCKED = re.compile(r"Read-only file system|Permission denied|Operation not permitted")


def terminal(args: dict[str, Any], ctx: ToolContext) -> str:
    """Run `command` with bash; returns output and exit code, or raises on timeout/refusal."""
    command = require(args, "command")
    if not command.strip():
        raise ToolError("the command is empty")
    timeout = opt_int(args, "timeout", DEFAULT_TIMEOUT, 1, MAX_TIMEOUT)
    box = _plan_box(ctx, args) if ctx.mode == PLAN else sandbox_for(ctx)
    _approve(command, ctx, box)
    if opt_bool(args, "outside_sandbox") and box.active and ctx.mode != PLAN:
        box = _escalate(command, ctx, box)
    cwd = session_cwd(ctx)
    moved = ctx.state.cwd and Path(ctx.state.cwd) != cwd
    later = _judge_left_running(ctx.state, str(cwd))  # what a process left running wrote since
    armed = arming.Watch(box, cwd, Path(ctx.home))  # what would run later: put back, reported
    # what it changes: /diff shows, /undo restores (plan mode's read-only box changes nothing)
    changes = None if ctx.mode == PLAN else term_changes.Watch.begin(ctx)
    code, stopped, output, new_cwd = _run(command, cwd, timeout, ctx.state.cancel,
                                          groups=ctx.state.process_groups, sandbox=box)
    if new_cwd and Path(new_cwd).is_dir():
        ctx.state.cwd = new_cwd
    note = later + (f"[the previous working directory is gone; ran in {cwd}]\n" if moved else "")
    if box.broke:  # the command ran in a fresh session (agent/sandbox/backend.py `launch`)
        note += (f"[the sandbox session was restarted ({box.broke}): background processes and "
                 "/tmp files of the old one are gone]\n")
        box.broke = None
    note += armed.done(ctx.state.cwd)
    if changes is not None:  # after the arming files were put back
        changes.done()
    if ctx.mode != PLAN and term_left.left_running(ctx.state, box):
        ctx.state.left_running = term_left.LeftRunning.take(ctx, box, ctx.state.cwd or str(cwd))
    if stopped == "cancelled":
        raise ToolError(f"{note}interrupted by the user: the command was killed (with its whole "
                        f"process group). Output before the kill:\n{output or '(none)'}")
    if stopped == "flood":
        raise ToolError(
            f"{note}the command wrote more than {MAX_OUTPUT_FILE // 2**20} MB of output and was "
            f"killed. Output (head and tail):\n{output or '(none)'}\nRedirect big output to a "
            "file and inspect it with head, tail or grep.")
    if stopped:
        raise ToolError(
            f"{note}command timed out after {timeout}s and was killed (with its whole process "
            f"group). Output before the kill:\n{output or '(none)'}\nRaise 'timeout', or run "
            "long-lived programs in the background with output redirected to a file."
        )
    if box.active and ctx.approve is not None and code and _BLOCKED.search(output):
        note += ("[the sandbox may have blocked this (writes go only to the workspace and temp "
                 "dir; secrets are hidden). If it must run unconfined, call again with "
                 "outside_sandbox: true - the user will be asked.]\n")
    return f"{note}{output or '(no output)'}\n[exit code {code}]"


def _escalate(command: str, ctx: ToolContext, box: Sandbox) -> Sandbox:
    """Only a person at the REPL lets one command run outside the sandbox (--yolo never
    does); "always" at the prompt means for this session. Secrets stay out of its env."""
    if ctx.approve is None:
        raise ToolError("refused: only a person at the interactive prompt can let a command run "
                        "outside the sandbox (--yolo does not). Work inside the workspace, or "
                        "ask the user to run it themselves.")
    if not ctx.approve(command, ESCALATE):
        raise ToolError("the user declined to run this command outside the sandbox. Do not "
                        "retry it; find a way inside the workspace or ask how to proceed.")
    return replace(box, backend=None, enabled=False, reason="the user allowed it for this command")


def _plan_box(ctx: ToolContext, args: dict[str, Any]) -> Sandbox:
    """Plan mode: the read-only, offline sandbox (agent/permissions/plan.py), or a refusal."""
    box = readonly_sandbox(ctx)
    if not box.active:
        raise ToolError(f"plan mode is on and there is no sandbox ({box.reason}) to keep this "
                        "command read-only, so it is refused. Use read_file and search_files.")
    if opt_bool(args, "outside_sandbox"):
        raise ToolError("plan mode is on: nothing runs outside the read-only sandbox.")
    return box


def _approve(command: str, ctx: ToolContext, box: Sandbox) -> None:
    reason = dangerous_reason(command)
    if reason is None and ctx.mode != PLAN:  # /undo could not put back what it deletes
        reason = big_deletion(command, session_cwd(ctx), Path(ctx.cwd))
    if reason is not None and ctx.permissions is not None and \
            ctx.permissions.allows("terminal", {"command": command}, Path(ctx.cwd)):
        reason = None  # an allow rule skips the danger prompt (never the sandbox)
    if reason is None and not box.active and not plainly_read_only(command):
        reason = f"no sandbox ({box.reason}), and it is not plainly read-only"
    if reason is None or ctx.yolo:
        return
    if ctx.approve is None:
        raise ToolError(
            f"refused: this command looks dangerous ({reason}) and no one is here to approve it. "
            "Find a safer way, or ask the user to run it themselves or to restart hermes with "
            "--yolo, which allows dangerous commands without asking."
        )
    if not ctx.approve(command, reason):
        raise ToolError(
            f"the user declined to run this command ({reason}). Do not retry it; ask the user "
            "how to proceed or choose a safer approach."
        )


def _started(script: str, cwd: Path, out_w: int, cwd_w: int,
             sandbox: Sandbox | None) -> subprocess.Popen[bytes]:
    """`_start`, again when the pre-exec step failed (nothing ran: it fails before exec).
    A transient refusal is tried once more in the same session (its background processes
    kept); a second failure means the session is broken: it is replaced, once."""
    for attempt in range(3):
        try:
            return _start(script, cwd, out_w, cwd_w, sandbox)
        except (subprocess.SubprocessError, SetupError):
            if sandbox is None or attempt == 2:
                raise
            if attempt == 1:
                sandbox.close()  # `launch` starts a fresh session
    raise AssertionError("unreachable")


def _start(script: str, cwd: Path, out_w: int, cwd_w: int,
           sandbox: Sandbox | None) -> subprocess.Popen[bytes]:
    """Start bash on `script` in its own process group, confined by `sandbox`."""
    with sandbox.launch(cwd) if sandbox is not None else contextlib.nullcontext() as confine:
        base = sandbox.environment() if sandbox is not None else dict(os.environ)
        env = {**base, "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
        return subprocess.Popen(["bash", "-c", script], cwd=cwd, env=env,
                                stdin=subprocess.DEVNULL, stdout=out_w,
                                stderr=subprocess.STDOUT, pass_fds=(cwd_w,),
                                start_new_session=True, preexec_fn=confine)


def _run(command: str, cwd: Path, timeout: int, cancel: CancelToken | None = None,  # noqa: PLR0913
         max_bytes: int = MAX_OUTPUT_FILE, groups: set[int] | None = None,
         sandbox: Sandbox | None = None) -> tuple[int, str, str, str]:
    """Run the command; returns (exit code, why it was stopped: "" | "timeout" |
    "cancelled" | "flood", output, the directory it ended in). Output and directory come
    back through pipes (agent/tools/term_output.py). Whatever happens here (Ctrl-C,
    SIGTERM turned into an exception), the whole process group is killed."""
    out_r, out_w = os.pipe2(os.O_CLOEXEC)
    cwd_r, cwd_w = os.pipe2(os.O_CLOEXEC)
    for fd in (out_r, cwd_r):
        os.set_blocking(fd, False)
    script = f"trap 'pwd >&{cwd_w}' EXIT\n{command}\n"
    capture = term_output.Capture()
    try:
        proc = _started(script, cwd, out_w, cwd_w, sandbox)
    except (subprocess.SubprocessError, SetupError) as exc:  # preexec_fn raised: nothing ran
        for fd in (out_r, cwd_r):
            os.close(fd)
        raise ToolError(f"the sandbox could not be set up ({exc}); the command did not "
                        "run. Tell the user; `--no-sandbox` turns the sandbox off.") from exc
    finally:
        os.close(out_w)
        os.close(cwd_w)
    try:
        stopped = _wait(proc, out_r, capture, timeout, cancel, max_bytes)
    except BaseException:
        _kill_group(proc)
        term_output.finish(out_r, capture, cwd_r)
        raise
    if stopped:
        _kill_group(proc)
    new_cwd = term_output.finish(out_r, capture, cwd_r)
    if stopped:
        return -signal.SIGKILL, stopped, capture.text(), new_cwd
    if groups is not None:
        _prune(groups)
        groups.add(proc.pid)  # background jobs it left live on in this group
    return proc.returncode, "", capture.text(), new_cwd


def _wait(proc: subprocess.Popen[bytes], out_r: int, capture: term_output.Capture, timeout: int,
          cancel: CancelToken | None, max_bytes: int) -> str:
    """Read the output until the command exits: "" then, else why it must be stopped.
    A pidfd wakes the wait at the exit; the output pipe at each write."""
    deadline = time.monotonic() + timeout
    pidfd = os.pidfd_open(proc.pid)
    try:
        while True:
            ready = term_output.wait_readable([pidfd, out_r], min(POLL, max(0.0, deadline - time.monotonic())))
            if out_r in ready:
                term_output.read_ready(out_r, capture)
            if pidfd in ready or proc.poll() is not None:
                proc.wait()
                return ""
            if cancel is not None and cancel.cancelled:
                return "cancelled"
            if capture.total > max_bytes:
                return "flood"
            if time.monotonic() >= deadline:
                return "timeout"
    finally:
        os.close(pidfd)


def _prune(groups: set[int]) -> None:
    """Forget groups with no process left (so a reused id is never signalled later)."""
    for pgid in list(groups):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            groups.discard(pgid)
        except PermissionError:
            groups.discard(pgid)  # not ours any more


def release_processes(state: ToolState) -> int:
    """Kill what the session's commands left running in the background (their process
    groups); called when the agent is closed or evicted. Returns the groups signalled.
    What they wrote since the last command is judged once they are gone (term_left.py)."""
    groups, state.process_groups = state.process_groups, set()
    _prune(groups)
    for box in (state.sandbox, state.plan_sandbox):
        if box is not None:
            box.close()  # the session's namespaces: whatever still runs in them ends
    for pgid in groups:
        _signal_group(pgid, signal.SIGTERM)
    if groups:
        time.sleep(0.05)
    for pgid in groups:
        _signal_group(pgid, signal.SIGKILL)
    _judge_left_running(state, state.cwd)
    return len(groups)


def _judge_left_running(state: ToolState, cwd: str | None) -> str:
    left: term_left.LeftRunning | None = state.left_running
    state.left_running = None
    if left is None:
        return ""
    return left.judge(cwd or left.root)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group, give it a moment, then SIGKILL whatever is left."""
    _signal_group(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=KILL_GRACE)
    except subprocess.TimeoutExpired:
        _signal_group(proc.pid, signal.SIGKILL)  # bash itself ignored SIGTERM
    _signal_group(proc.pid, signal.SIGKILL)  # children that outlived bash or ignore SIGTERM
    try:
        proc.wait(timeout=REAP_DEADLINE)
    except subprocess.TimeoutExpired:  # SIGKILLed yet alive: stuck in the kernel (D state)
        logger.warning("command pid %d did not exit %.0f s after SIGKILL; not waiting for it",
                       proc.pid, REAP_DEADLINE)  # the turn goes on; subprocess reaps it later


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return  # the whole group has already exited


TOOL = Tool(
    name="terminal",
    toolset="terminal",
    description=(
        "Run a bash command; returns stdout+stderr and the exit code. The working directory "
        "persists between calls (cd works); environment variables and other shell state do "
        "not. stdin is closed: use non-interactive flags (-y, --no-pager). Start servers in "
        "the background, output redirected to a file. Dangerous commands need the user's "
        "approval."
    ),
    parameters={
        "type": "object",
        "properties": {
            "command": {"type": "string"},
            "timeout": {"type": "integer", "description": f"Seconds (max {MAX_TIMEOUT}).",
                        "default": DEFAULT_TIMEOUT},
            "outside_sandbox": {"type": "boolean",
                                "description": "Run outside the sandbox (the user is asked)."},
        },
        "required": ["command"],
    },
    run=terminal,
    untrusted=True,
)
