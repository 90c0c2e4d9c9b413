"""Cost of matching `terminal(...)` rules on what the shell runs: `python bench/rule_parsing.py [N]`.

Per tool call, the gate parses the command line once (agent/permissions/shell.py,
cached per distinct line) and matches every terminal rule against its simple commands.
Measured here, the best of five rounds of a median of N, for a representative set of
lines: the parse alone (uncached), and a whole verdict with four rules on a line never
seen before (what a new call pays).
Running it on an earlier commit (`git archive COMMIT | tar -x -C DIR`, run from DIR)
gives the "before" figure; the last line is the mean over the representative lines.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent.permissions.rules import parse  # noqa: E402
from bench._timing import median_us  # noqa: E402

LINES = ["git status --short", "cd src && pytest -q tests/test_x.py 2>&1 | tail -20",
         "for f in *.py; do python -m py_compile \"$f\" || echo \"bad $f\"; done",
         "bash -c 'git -C sub push origin main' && echo $(date)", "ls -la", "pytest -q -x",
         "git diff HEAD~1 -- src/app.py | head -100", "grep -rn 'def main' --include=*.py .",
         "timeout 60 python -m pytest -q tests/unit -k 'not slow'",
         "for ((i=0; i<3; i++)); do curl -s localhost:8000/health; sleep 1; done",
         "cat <<'EOF' > notes.md\n# Notes\n$(not run)\nEOF", "git add -A && git commit -m 'fix: x'"]
RULES = {"deny": ["terminal(git push*)", "terminal(rm -rf*)"],
         "allow": ["terminal(git status*)", "terminal(pytest*)"]}


def main(n: int = 600, rounds: int = 5) -> None:
    rules, cwd = parse(RULES, "bench"), Path(".")
    try:
        from agent.permissions.shell import analyse
    except ImportError:
        analyse = None
    print(f"best of {rounds} rounds of a median of {n}, 4 rules:")
    counter = iter(range(10**9))
    best: dict[str, tuple[float, float]] = {}
    for _ in range(rounds):  # rounds: the machine is shared; the best round is the figure
        for line in LINES:
            parse_us = median_us(lambda line=line: analyse.__wrapped__(line), n) if analyse else 0.0

            def verdict(line: str = line) -> None:  # a new line each call: nothing cached
                rules.verdict("terminal", {"command": f"{line} #{next(counter)}"}, cwd)

            verdict_us = median_us(verdict, n)
            old = best.get(line, (float("inf"), float("inf")))
            best[line] = (min(old[0], parse_us), min(old[1], verdict_us))
    for line, (parse_us, verdict_us) in best.items():
        print(f"  parse {parse_us:7.1f} us   verdict {verdict_us:7.1f} us   {line[:50]!r}")
    mean = sum(v for _, v in best.values()) / len(best)
    print(f"mean verdict per terminal call over the {len(LINES)} lines: {mean:.1f} us")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 600)
