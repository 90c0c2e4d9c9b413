"""Rendering cost of a streamed reply, against the stream's own duration.

A reply of N lines (one N-line code block, or N lines of prose paragraphs) is cut into
chunks as a provider sends them (1-6 tokens of ~4 characters) and fed to the REPL's
`Renderer` on a terminal console writing to /dev/null (100x40). The provider's pace is
simulated by the renderer's clock (TOKENS_PER_SECOND), so throttling sees the timing it
would see live, and the bench itself does not sleep. Prints per size: the render time
(wall and CPU, including the final commit), the stream's duration, and wall/stream.
Goal: linear growth, and under 10% of the stream's duration at 5,000 lines.
Not a test; no timing asserts anywhere.

    .venv/bin/python bench/render.py [--sizes 100,500,1000,2000,5000] [--kinds code,prose]
"""

from __future__ import annotations

import argparse
import inspect
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

from agent.events import TextDelta  # noqa: E402
from hermes_cli.render.renderer import Renderer  # noqa: E402

TOKENS_PER_SECOND = 150.0  # a fast provider's stream
CHARS_PER_TOKEN = 4


def reply(kind: str, lines: int) -> str:
    """A reply of `lines` lines: one code block, or prose in 5-line paragraphs."""
    if kind == "code":
        body = "".join(f"    total += compute_value(item_{i}, factor={i % 7})  # step {i}\n"
                       for i in range(lines))
        return "Here is the code:\n\n```python\ndef run():\n" + body + "```\n\nDone.\n"
    out = []
    for i in range(lines):
        out.append(f"Line {i} of the answer explains a **point** about `caching` and more "
                   f"words to fill it.\n")
        if i % 5 == 4:
            out.append("\n")
    return "".join(out)


def chunks(text: str, seed: int = 13) -> list[str]:
    """The text cut as a provider streams it: 1-6 tokens per chunk."""
    rng = random.Random(seed)
    out, at = [], 0
    while at < len(text):
        size = rng.randint(1, 6) * CHARS_PER_TOKEN
        out.append(text[at:at + size])
        at += size
    return out


class StreamClock:
    """The provider's clock: advanced by each chunk's share of the stream."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def measure(kind: str, lines: int) -> tuple[float, float, float]:
    """(render wall seconds, render CPU seconds, stream seconds) for one reply. CPU time
    (all threads of this process) is the fairer figure on a shared, loaded machine."""
    text = reply(kind, lines)
    pieces = chunks(text)
    stream = len(text) / CHARS_PER_TOKEN / TOKENS_PER_SECOND
    clock = StreamClock()
    with open(os.devnull, "w") as null:
        console = Console(file=null, force_terminal=True, width=100, height=40)
        if "clock" in inspect.signature(Renderer).parameters:
            renderer = Renderer(console, clock=clock)
        else:  # the renderer before it took a clock
            renderer = Renderer(console)
        started, cpu = time.perf_counter(), time.process_time()
        renderer.start_turn()
        for piece in pieces:
            clock.now += len(piece) / CHARS_PER_TOKEN / TOKENS_PER_SECOND
            renderer.handle(TextDelta(piece))
        renderer.end_turn()
        spent, cpu = time.perf_counter() - started, time.process_time() - cpu
    return spent, cpu, stream


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,500,1000,2000,5000")
    parser.add_argument("--kinds", default="code,prose")
    args = parser.parse_args()
    print(f"{'kind':<6}{'lines':>7}{'render s':>10}{'cpu s':>8}{'stream s':>10}{'ratio':>8}")
    for kind in args.kinds.split(","):
        for lines in (int(s) for s in args.sizes.split(",")):
            spent, cpu, stream = measure(kind, lines)
            print(f"{kind:<6}{lines:>7}{spent:>10.3f}{cpu:>8.3f}{stream:>10.1f}"
                  f"{spent / stream:>8.1%}", flush=True)


if __name__ == "__main__":
    main()
