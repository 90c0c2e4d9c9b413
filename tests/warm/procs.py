"""What /proc says about the warm server's processes (tests/warm/)."""

from __future__ import annotations

import os


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children, grandchildren, ...)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [], [pid]
    while frontier:
        below = [child for child, parent in parents.items() if parent in frontier]
        found.extend(below)
        frontier = below
    return found


def command_line(pid: int) -> tuple[str, list[str]]:
    """(comm, argv) as `ps -e` and `ps aux` show them."""
    with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
        comm = f.read().strip()
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        argv = [part.decode(errors="replace") for part in f.read().split(b"\0") if part]
    return comm, argv


def memory_holds(pid: int, needle: bytes) -> bool:
    """`needle` is somewhere in the readable memory of `pid` (/proc/PID/maps + mem: a
    process of the same user may read it as a debugger would)."""
    with open(f"/proc/{pid}/maps", encoding="ascii", errors="replace") as maps:
        regions = [line.split() for line in maps]
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for fields in regions:
            if not fields[1].startswith("r") or (len(fields) > 5 and fields[5] == "[vvar]"):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            try:
                mem.seek(start)
                data = mem.read(end - start)
            except (OSError, OverflowError, ValueError):
                continue
            if needle in data:
                return True
    return False

