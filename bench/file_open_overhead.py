"""Cost of opening files beneath their root: `python bench/file_open_overhead.py [N]`.

1. The open path alone, side by side in one process (median of N, a file 3 levels
   deep in a workspace): a plain `open()` read vs `safefs.read_bytes` (openat2, and the
   per-component walk), and a temp-file + `os.replace` write vs `safefs.write_atomic`.
2. read_file and write_file through the tool registry, sandbox policy on (the whole
   call: policy checks, open, formatting). This part runs on any checkout, so running
   the script on the previous commit gives the "before" figure for the ratio.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent.messages import ToolCall, canonical_json  # noqa: E402
from agent.tools.registry import ToolContext, ToolRegistry, discover  # noqa: E402
from bench._timing import median_us  # noqa: E402


def _open_path(ws: Path, n: int) -> None:
    try:
        import safefs
    except ImportError:
        print("open path: safefs is not in this checkout (before the change)")
        return
    target = ws / "a" / "b" / "c" / "f.txt"

    def plain_read() -> bytes:
        with open(target, "rb") as handle:
            return handle.read()

    def plain_write() -> None:
        tmp = target.with_name(".f.txt.tmp")
        with open(tmp, "wb") as handle:
            handle.write(b"x" * 1000)
        os.replace(tmp, target)

    rows = [("read, plain open()", median_us(plain_read, n))]
    for resolver in ("openat2", "walk"):
        safefs.use(resolver)
        rows.append((f"read, safefs ({resolver})",
                     median_us(lambda: safefs.read_bytes(str(ws), "a/b/c/f.txt"), n)))
    safefs.use(None)
    rows.append(("write, temp + os.replace", median_us(plain_write, n)))
    for resolver in ("openat2", "walk"):
        safefs.use(resolver)
        rows.append((f"write, safefs ({resolver})", median_us(
            lambda: safefs.write_atomic(str(ws), "a/b/c/f.txt", b"x" * 1000), n)))
    safefs.use(None)
    for name, us in rows:
        base = rows[0][1] if name.startswith("read") else rows[3][1]
        print(f"  {name:<28} {us:8.1f} us  (x{us / base:.2f})")


def _tool_calls(ws: Path, home: Path, n: int) -> None:
    registry = ToolRegistry(discover())
    ctx = ToolContext(session_id="bench", home=home, cwd=ws, yolo=True)
    content = "".join(f"line {i}\n" for i in range(100))

    def call(tool: str, **args: object) -> None:
        result = registry.dispatch(ToolCall("c", tool, canonical_json(args)), ctx)
        assert result.ok, result.content

    call("write_file", path="a/b/c/g.txt", content=content)
    read = median_us(lambda: call("read_file", path="a/b/c/g.txt"), n)
    write = median_us(lambda: call("write_file", path="a/b/c/g.txt", content=content), n)
    print(f"  read_file call   {read:8.1f} us\n  write_file call  {write:8.1f} us")


def main(n: int = 500) -> None:
    base = Path(tempfile.mkdtemp(prefix="hermes-bench-"))
    ws, home = base / "ws", base / "hh"
    (ws / "a" / "b" / "c").mkdir(parents=True)
    home.mkdir()
    (ws / "a" / "b" / "c" / "f.txt").write_bytes(b"x" * 1000)
    print(f"median of {n}:")
    _open_path(ws, n)
    _tool_calls(ws, home, n)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
