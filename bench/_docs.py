"""A bench's figures written into docs/BENCHMARKS.md, so figures that move with every
commit live in one generated place and never in prose (`--write-docs` on the benches that
take it).

A section is the text between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`; writing
replaces only that text (the rest of the page is the team's prose) and stamps it with the
date, the commit and the machine's load, so a reader knows what the figures describe. A
section not on the page yet is appended at its end.
"""

from __future__ import annotations

import datetime
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "BENCHMARKS.md"


def _commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10, check=False)
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def stamp(bench: str, today: datetime.date | None = None, commit: str | None = None) -> str:
    """The line under a generated section: which bench, when, on what."""
    day = (today or datetime.date.today()).isoformat()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"*Written by `.venv/bin/python bench/{bench}.py --write-docs` on {day}, commit "
            f"{commit or _commit()}, load average {load:.1f} on {os.cpu_count()} cores.*")


def write_section(name: str, markdown: str, page: Path = PAGE, *, bench: str | None = None,
                  stamp_line: str | None = None) -> None:
    """Replace section `name` of `page` with `markdown` and its stamp (append it when the
    page has no such section)."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    body = (f"{start}\n{markdown.rstrip()}\n\n"
            f"{stamp_line or stamp(bench or name)}\n{end}")
    text = page.read_text(encoding="utf-8") if page.exists() else ""
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _m: body, text, count=1)
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + body + "\n"
    page.write_text(text, encoding="utf-8")


def sections(page: Path = PAGE) -> list[str]:
    """The names of the generated sections on `page`, in order."""
    return re.findall(r"<!-- bench:([\w-]+) -->", page.read_text(encoding="utf-8"))


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
