"""Where the warm server listens: a private folder per user and one socket per
installation fingerprint, so an upgraded SDK, an edited hermes module or another
interpreter is never served by a process that imported the old code."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path

#: hermes' own packages: their sources are in the fingerprint (the server preloads all but
#: the gateway's, hermes_cli/launch/server.py NOT_SERVED)
PACKAGES = ("agent", "frontend", "gateway", "hermes_cli", "memory", "skills", "safefs",
            "hermes_acp")
#: what an interpreter reads once at start-up (tests/prefork.py's key)
INTERPRETER_KEYS = ("PYTHON", "LANG", "LC_")
IDLE_SECONDS = 15 * 60  # the server exits after this long without a run (by default)
ROOT = Path(__file__).resolve().parents[2]  # the hermes source tree


def installation() -> str:
    """Which interpreter and source tree a server serves: one server per installation."""
    return f"{sys.executable}|{ROOT}"


def python_env(env: Mapping[str, str]) -> dict[str, str]:
    """The PYTHON* settings an interpreter reads once at start-up: a fork may only run
    with the values its server started with. Not the locale: the server starts in
    C.UTF-8 and each run takes its client's (hermes_cli/launch/child.py `use_locale`)."""
    return {k: v for k, v in env.items() if k.startswith("PYTHON")}


def interpreter_env(env: dict[str, str]) -> dict[str, str]:
    """The variables an interpreter reads once at start-up, the locale included: what
    tests/prefork.py keys its fork server by (its children keep the server's locale; the
    warm start's take their client's and key by `python_env` only)."""
    return {k: v for k, v in env.items() if k.startswith(INTERPRETER_KEYS)}


def folder(env: Mapping[str, str]) -> Path | None:
    """The user's private folder for warm sockets, made 0700 if missing; None when an
    existing one is not a real folder of this user that only they can enter (then the
    warm start is not used at all: someone else could listen there)."""
    runtime = env.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime and os.path.isdir(runtime) else Path("/tmp")
    path = base / f"hermes-warm-{os.getuid()}"
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(path)
    except OSError:
        return None
    if (not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid()
            or stat.S_IMODE(info.st_mode) & 0o077):
        return None
    return path


def _sources(root: Path) -> list[tuple[str, int, int]]:
    found = []
    for package in PACKAGES:
        stack = [root / package]
        while stack:
            try:
                entries = list(os.scandir(stack.pop()))
            except OSError:
                continue
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(Path(entry.path))
                elif entry.name.endswith(".py"):
                    info = entry.stat()
                    found.append((entry.path, info.st_mtime_ns, info.st_size))
    return sorted(found)


def fingerprint(env: dict[str, str]) -> str:
    """What the server's imported code depends on: the interpreter, its start-up
    settings (PYTHON*, never the locale: one server per installation whatever LANG says), every site-packages folder on the import path (an install, upgrade or
    removal changes the folder's mtime) and each hermes source file (path, mtime, size).
    Other import path folders (the working directory with `-m`) are left out: their
    mtime changes with every file made there."""
    import hashlib  # here: `hermes --version` and help never need it

    digest = hashlib.sha256()
    digest.update(f"{sys.executable}\0{sys.version}\0".encode())
    digest.update(repr(sorted(python_env(env).items())).encode())
    for entry in sys.path:
        if not entry.endswith(("site-packages", "dist-packages")):
            continue
        try:
            digest.update(f"{entry}\0{os.stat(entry).st_mtime_ns}\0".encode())
        except OSError:
            digest.update(f"{entry}\0-\0".encode())
    digest.update(repr(_sources(ROOT)).encode())
    return digest.hexdigest()[:20]


SOCKET_PATH_MAX = 107 - 8  # sun_path holds 108 bytes; the server binds NAME.PID first


def socket_path(env: dict[str, str]) -> Path | None:
    """None when the warm start cannot be used here (no private folder, or one whose
    path is too long for a Unix socket): the run starts cold."""
    where = folder(env)
    if where is None:
        return None
    path = where / f"{fingerprint(env)}.sock"
    return path if len(os.fsencode(path)) <= SOCKET_PATH_MAX else None
