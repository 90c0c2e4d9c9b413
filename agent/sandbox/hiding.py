"""What the session's mount namespace hides beyond the policy's secret locations.

Planned in hermes (`plan`, before the holder forks) and laid out in the holder's child
before exec (`lay_out`, called from agent/sandbox/linux.py right after the private /tmp
and before the writable roots are bound back):
- the home: an empty read-only tmpfs on $HOME with only the allowlist bound back
  (agent/sandbox/home.py); the workspace and writable roots inside it are bound back
  here and made writable by linux.py as before;
- host unix sockets (`network: off` and `public` only; `on` keeps them): an empty
  read-only tmpfs on /run (so /var/run), on $XDG_RUNTIME_DIR and on the directory of
  $SSH_AUTH_SOCK, and (`cover_sockets`, after every other mount) something else
  bound over each pathname socket the host's network namespace has bound
  (/proc/net/unix: the list of what listens, not a list of guessed names) that is still
  visible inside (/dev/null bound over it). A connect() then fails: ECONNREFUSED.
"""

from __future__ import annotations

import ctypes
import os
import stat
from dataclasses import dataclass
from typing import Protocol

from agent.sandbox.policy import Policy, inside

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC = 32, 4096, 16384
RUN_KEEP = ("current-system", "booted-system", "wrappers")  # NixOS: the system's programs live here


class Mount(Protocol):
    """linux.py's `_mount` (passed in: this module is imported by it)."""

    def __call__(self, lib: ctypes.CDLL, source: str | None, target: str, fstype: str | None,
                 flags: int, data: bytes | None = None) -> None: ...


@dataclass(frozen=True)
class Plan:
    """What to hide, decided in hermes from the host's view."""

    home: str = ""  # "" = the home is not hidden
    home_binds: tuple[tuple[str, bool], ...] = ()  # (path, is a directory) bound back
    run_dirs: tuple[str, ...] = ()  # covered with an empty tmpfs
    run_keep: tuple[str, ...] = ()  # inside run_dirs, bound back (NixOS)
    sockets: tuple[str, ...] = ()  # host sockets to cover where still visible


def plan(policy: Policy, environ: dict[str, str] | None = None) -> Plan:
    view = policy.home_view
    home, binds = "", tuple[tuple[str, bool], ...]()
    if view is not None and os.path.isdir(view.home):
        home = view.home
        binds = tuple((p, os.path.isdir(p)) for p in view.mounts(policy.writable))
    runs = run_dirs(policy, environ)
    if not runs:
        return Plan(home, binds)
    keep = tuple(os.path.join(r, k) for r in runs for k in RUN_KEEP if os.path.exists(os.path.join(r, k)))
    return Plan(home, binds, runs, keep, host_sockets())


def run_dirs(policy: Policy, environ: dict[str, str] | None = None) -> tuple[str, ...]:
    """/run, $XDG_RUNTIME_DIR, $SSH_AUTH_SOCK's folder: where host services put their
    sockets (none for `network: on`, nor one holding a writable root)."""
    if policy.network not in ("off", "public"):
        return ()
    env = os.environ if environ is None else environ
    runs: list[str] = []
    for raw in ("/run", "/var/run", env.get("XDG_RUNTIME_DIR", ""),
                os.path.dirname(env.get("SSH_AUTH_SOCK", ""))):
        real = os.path.realpath(raw) if raw else ""
        if (real and real != "/" and os.path.isdir(real) and real not in runs
                and not any(inside(real, w) or inside(w, real) for w in policy.writable)):
            runs.append(real)
    return tuple(r for r in runs if not any(inside(r, q) and r != q for q in runs))


def readable(policy: Policy) -> list[str]:
    """The new empty directories (home, run dirs), which Landlock must be told it may
    read: a rule on the path they cover does not reach a mount over it."""
    view = policy.home_view
    home = [view.home] if view is not None and os.path.isdir(view.home) else []
    return home + list(run_dirs(policy))


def host_sockets(table: str = "/proc/self/net/unix") -> tuple[str, ...]:
    """Every pathname socket bound in hermes' network namespace (abstract ones, `@...`,
    are Landlock's: scoped since ABI 6)."""
    try:
        with open(table, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()[1:]
    except OSError:
        return ()
    found = {parts[7] for parts in (line.split(None, 7) for line in lines)
             if len(parts) == 8 and parts[7].startswith("/")}
    return tuple(sorted(found))


def lay_out(lib: ctypes.CDLL, plan: Plan, mount: Mount) -> None:
    """In the holder's child, after the private /tmp: the empty home, the run dirs."""
    if plan.home:
        _empty_with(lib, plan.home, plan.home_binds, mount)
    for run in plan.run_dirs:
        _empty_with(lib, run, tuple((k, os.path.isdir(k)) for k in plan.run_keep if inside(k, run)), mount)


def cover_sockets(lib: ctypes.CDLL, plan: Plan, mount: Mount) -> None:
    """After every other mount: /dev/null over each host socket still visible (a connect
    meets a character device; the path, now a mount point, cannot be renamed or removed;
    no read-only remount, which a user namespace refuses on /dev's locked flags)."""
    for path in plan.sockets:
        try:
            if not stat.S_ISSOCK(os.lstat(path).st_mode):
                continue
        except OSError:
            continue  # hidden already (the home, /tmp, /run) or gone
        try:
            mount(lib, "/dev/null", path, None, MS_BIND)  # a mount point: not renamed or removed
        except OSError:
            if _still_a_socket(path):
                raise  # a socket left uncovered: the sandbox must not start
            # removed by its owner between the look and the mount: nothing left to cover


def _still_a_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:
        return False


def _empty_with(lib: ctypes.CDLL, where: str, binds: tuple[tuple[str, bool], ...], mount: Mount) -> None:
    """An empty read-only tmpfs on `where`, with `binds` (opened before it) shown through;
    nothing when `where` is already out of sight (under the private /tmp, the home)."""
    if not os.path.isdir(where):
        return
    held = [(path, is_dir, os.open(path, os.O_PATH | os.O_CLOEXEC)) for path, is_dir in binds
            if os.path.exists(path)]
    flags = MS_NOSUID | MS_NODEV
    mount(lib, "tmpfs", where, "tmpfs", flags, b"size=64k,mode=0755")
    for path, is_dir, fd in held:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if is_dir:
            os.makedirs(path, exist_ok=True)
        else:
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o600))
        mount(lib, f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        os.close(fd)
    mount(lib, None, where, None, MS_REMOUNT | MS_RDONLY | flags)
