"""File operations beneath a root (a directory path), all through descriptors.

Each function takes `root` (a directory we trust by name: nothing a tool can change
holds it) and `rel`, a path inside it. Reads open regular files only (O_NONBLOCK, so a
FIFO never blocks; a device or socket is `NotRegular`); writes go to an O_EXCL temp
file renamed over the name inside the same directory descriptor; `walk` lists a tree
without following links. See safefs/beneath.py for how a path is resolved.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

from safefs.beneath import Escape, fd_path, inside_root, open_beneath

_DIR = os.O_PATH | os.O_DIRECTORY


class NotRegular(OSError):
    """The path is a directory, FIFO, device or socket where a regular file was wanted."""


@contextmanager
def opened_root(root: str) -> Iterator[int]:
    fd = os.open(root, _DIR | os.O_CLOEXEC)
    try:
        yield fd
    finally:
        os.close(fd)


def _split(rel: str) -> tuple[str, str]:
    parent, _, name = rel.strip("/").rpartition("/")
    if name in ("", ".", ".."):
        raise IsADirectoryError(21, "not a file name", rel)
    return parent, name


def open_regular(root: str, rel: str, *, links: bool = True) -> int:
    """A read-only descriptor of the regular file `rel` (NotRegular otherwise)."""
    with opened_root(root) as top:
        fd = open_beneath(top, rel, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY, links=links)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise NotRegular(21 if stat.S_ISDIR(mode) else 22, kind, rel)
    os.set_blocking(fd, True)
    return fd


def read_bytes(root: str, rel: str, *, links: bool = True) -> bytes:
    fd = open_regular(root, rel, links=links)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def stat_beneath(root: str, rel: str, *, links: bool = True) -> os.stat_result | None:
    """`rel`'s status (links inside the root followed), None when it does not exist."""
    with opened_root(root) as top:
        try:
            fd = open_beneath(top, rel, os.O_PATH, links=links)
        except FileNotFoundError:
            return None
    try:
        return os.fstat(fd)
    finally:
        os.close(fd)


def open_dir(root: str, rel: str, *, create: bool = False, links: bool = True,
             mode: int = 0o777) -> int:
    """An O_PATH descriptor of directory `rel`; with `create`, missing ones are made
    (each `mkdirat` in its parent's descriptor)."""
    with opened_root(root) as top:
        try:
            return open_beneath(top, rel, _DIR, links=links)
        except FileNotFoundError:
            if not create:
                raise
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        fd = open_beneath(top, ".", _DIR)
        for i, name in enumerate(parts):
            with suppress(FileExistsError):
                os.mkdir(name, mode, dir_fd=fd)
            os.close(fd)
            fd = open_beneath(top, "/".join(parts[: i + 1]), _DIR, links=links)
        return fd


def _final(root: str, rel: str, links: bool) -> str:
    """`rel` with a link in its last component followed (inside the root); with no links
    allowed, `rel` itself (the rename replaces a link there, never follows it)."""
    if not links:
        return rel
    for _ in range(40):
        parent, name = _split(rel)
        try:
            pfd = open_dir(root, parent, links=links)
        except FileNotFoundError:
            return rel
        try:
            target = os.readlink(name, dir_fd=pfd)
        except OSError:
            return rel  # not a link (or not there): write this name
        finally:
            os.close(pfd)
        if not links:
            raise Escape(rel, "is a symbolic link")
        if target.startswith("/"):
            inner = inside_root(os.path.realpath(root), target)
            if inner is None:
                raise Escape(rel)
            rel = inner
        else:
            rel = os.path.normpath(os.path.join(parent, target))
            if rel == ".." or rel.startswith("../"):
                raise Escape(rel)
    raise OSError(40, "too many levels of symbolic links", rel)


def write_atomic(root: str, rel: str, data: bytes, *, parents: bool = True,
                 links: bool = True, check: Callable[[str], None] | None = None,
                 mode: int | None = None) -> str:
    """Replace `rel` by `data` (temp file + rename in the parent's descriptor; an existing
    file keeps its mode, unless `mode` is given). A final link inside the root is written through. `check`, if
    given, is called with the parent directory's real path before anything is created
    (to refuse it). Returns the path written, as the kernel names it."""
    rel = _final(root, rel, links)
    parent, name = _split(rel)
    pfd = open_dir(root, parent, create=parents, links=links)
    try:
        where = os.path.join(fd_path(pfd), name)
        if check is not None:
            check(where)
        keep = mode
        try:
            info = os.stat(name, dir_fd=pfd, follow_symlinks=False)
            if keep is None and stat.S_ISREG(info.st_mode):
                keep = stat.S_IMODE(info.st_mode)
        except FileNotFoundError:
            pass
        tmp = f".{name[:200]}.{secrets.token_hex(4)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o666, dir_fd=pfd)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                if keep is not None:
                    os.fchmod(handle.fileno(), keep)
            os.rename(tmp, name, src_dir_fd=pfd, dst_dir_fd=pfd)
        except BaseException:
            os.unlink(tmp, dir_fd=pfd)
            raise
        return where
    finally:
        os.close(pfd)


def create_new(root: str, rel: str, data: bytes, *, mode: int = 0o600) -> None:
    """Create `rel` holding `data`: O_CREAT|O_EXCL|O_NOFOLLOW in its parent's descriptor
    (FileExistsError when the name is taken, by a file or a link)."""
    parent, name = _split(rel)
    pfd = open_dir(root, parent, links=False)
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     mode, dir_fd=pfd)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    finally:
        os.close(pfd)


def unlink(root: str, rel: str, *, links: bool = True) -> None:
    parent, name = _split(rel)
    pfd = open_dir(root, parent, links=links)
    try:
        os.unlink(name, dir_fd=pfd)
    finally:
        os.close(pfd)


@dataclass(frozen=True)
class Entry:
    """A regular file met by `walk`: its path relative to the walk's start, and the
    descriptor of its directory (valid while the walk is at it)."""

    rel: str
    dir_fd: int
    name: str

    def read(self, limit: int | None = None) -> bytes | None:
        """Its bytes (None when it is no longer a regular file, or over `limit`)."""
        try:
            fd = os.open(self.name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY
                         | os.O_CLOEXEC, dir_fd=self.dir_fd)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or (limit is not None and info.st_size > limit):
                return None
            return handle.read()


def walk(root: str, rel: str, skip: frozenset[str] = frozenset()) -> Iterator[Entry]:
    """Regular files under directory `rel` in name order (entries sorted by name at each
    level), never through a link; directories named in `skip` are not entered."""
    with opened_root(root) as top:
        fd = open_beneath(top, rel, os.O_RDONLY | os.O_DIRECTORY)
    yield from _walk_fd(fd, "", skip)


def _walk_fd(fd: int, prefix: str, skip: frozenset[str]) -> Iterator[Entry]:
    try:
        with os.scandir(fd) as listing:
            entries = sorted(listing, key=lambda e: e.name)
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                if entry.name in skip:
                    continue
                try:
                    sub = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                                  | os.O_CLOEXEC, dir_fd=fd)
                except OSError:
                    continue
                yield from _walk_fd(sub, rel + "/", skip)
            elif entry.is_file(follow_symlinks=False):
                yield Entry(rel, fd, entry.name)
    except OSError:
        return
    finally:
        os.close(fd)
