"""Gemini cache bench: what three session shapes cost with implicit caching only, an
explicit cache per session, and the planner's choice - through the real adapter and the
real google-genai SDK against the fake Gemini API, which bills (tests/fakes/gemini_api.py
`GeminiState.bill`: input, cached reads, output, cache creation, storage per token-hour).

    .venv/bin/python bench/gemini_cache.py [--prefix 20000] [--model gemini-3.5-flash]

Shapes (the issue's): 5 quick turns (20 s apart, then exit); 20 turns with two
10-minute pauses (30 s apart otherwise, then exit); a gateway chat that comes back after
an hour (two turns, no exit: whatever cache it holds lives to its expiry, billed to it; the
session's source is "gateway", so the planner starts from the keeper's one-request prior).
Policies: "implicit" (never a resource; the fake's implicit cache reads an eligible
repeated prefix on every second request within 5 minutes - Google promises no hit),
"explicit" (a resource per session with the API's default 1-hour TTL, never extended,
deleted at exit), "planner" (hermes: agent/providers/gemini/planner.py).
The prefix is tools + the installation/project system blocks (a large context file);
every turn adds ~60 tokens of question and answer. Each row: the fake's bill, its
storage share, and what hermes showed (its usage rows' cost, settled at exit).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent.cache.pauses import session_pauses  # noqa: E402 - after the path fix above
from agent.cancel import CancelToken  # noqa: E402
from agent.cost import pricing  # noqa: E402
from agent.messages import Message, Request, SystemBlock, ToolSchema  # noqa: E402
from agent.providers.base import ProviderSettings, Services, StreamDone  # noqa: E402
from agent.providers.gemini.adapter import GeminiProvider  # noqa: E402
from memory.store import SessionStore  # noqa: E402
from tests.fakes import FakeProvider, Reply  # noqa: E402

SHAPES = {
    "5 quick turns": ([20.0] * 4, True),
    "20 turns, two 10-min pauses": ([30.0] * 6 + [600.0] + [30.0] * 6 + [600.0] + [30.0] * 5, True),
    "gateway chat back after 1 h": ([3600.0], False),
}
POLICIES = ("implicit", "explicit", "planner")
HORIZON = 3 * 3600.0  # the gateway chat's bill is read this long after its last turn
TOOLS = [ToolSchema(f"tool_{i}", "A tool of the session. " * 8,
                    {"type": "object", "properties": {"path": {"type": "string"}}}) for i in range(12)]


def system(prefix_tokens: int) -> list[SystemBlock]:
    context = "Project context: " + "name things for what they do; " * (prefix_tokens * 4 // 31)
    return [SystemBlock("You are hermes, a careful agent.", "stable", "installation"),
            SystemBlock(context, "stable", "project"),
            SystemBlock("Session started: 2026-12-05 10:00 UTC", "stable", "session")]


def run_shape(gaps: list[float], exits: bool, policy: str, prefix: int, model: str) -> dict:
    with FakeProvider() as fake, tempfile.TemporaryDirectory() as home:
        adapter = GeminiProvider(ProviderSettings("gemini", model, "bench-key", fake.gemini_base_url))
        store = SessionStore(Path(home) / "state.db")  # its own: no sharing with another run
        store.create_session("bench", model=model, provider="gemini", system_prompt="",
                             source="cli" if exits else "gateway")
        # the store (the session's source picks the planner's first prior), the idle
        # policy's pause model and the prices, as AIAgent opens it
        adapter.open(Services(store, session_pauses(store), pricing.prices))
        adapter.caches.policy = policy
        adapter.use_clock(fake.clock.now)  # pauses are the fake's: its time is the local time
        shown = 0.0
        messages: list[Message] = []
        for turn in range(len(gaps) + 1):
            messages.append(Message("user", f"Question {turn}: what does part {turn} do?"))
            fake.script(Reply(text=f"Part {turn} does what its name says, as the context notes."))
            request = Request(model=model, system=system(prefix), messages=list(messages),
                              tools=TOOLS, session_id="bench")
            for item in adapter.stream(request, CancelToken()):
                if isinstance(item, StreamDone):
                    reply = item.reply
            shown += pricing.cost(reply.usage, model) or 0.0
            charged = adapter.charges("bench")  # the cache's creation and storage
            if charged is not None:
                shown += pricing.cost(charged[0], model) or 0.0
            messages.append(reply.message)
            if turn < len(gaps):
                fake.clock.advance(gaps[turn])
        if exits:
            settled = adapter.settle("bench")
            if settled is not None:
                shown += pricing.cost(settled[0], model) or 0.0
        else:
            fake.clock.advance(HORIZON)  # the chat's cache (if any) lives to its expiry
        adapter.close() if exits else None
        store.close()
        bill = fake.gemini.bill(fake.requests, fake.clock.now())
        total = sum(bill.values())
        return {"bill": total, "storage": bill["storage"], "shown": shown,
                "creations": fake.gemini.creations,
                "uncached": _uncached(fake, model)}


def _uncached(fake: FakeProvider, model: str) -> float:
    from tests.fakes.gemini_rules import PRICES

    inp, _read, out, _store = PRICES[model]
    return sum(r.prompt_tokens * inp + (r.usage or {}).get("candidatesTokenCount", 0) * out
               + (r.usage or {}).get("thoughtsTokenCount", 0) * out
               for r in fake.requests_for("gemini") if r.usage) / 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", type=int, default=20_000)
    parser.add_argument("--model", default="gemini-3.5-flash")
    args = parser.parse_args(argv)
    print(f"model {args.model}, prefix ~{args.prefix:,} tokens; $ of the fake's bill "
          f"(storage share); hermes shown")
    print(f"{'shape':30} {'uncached':>9} " + " ".join(f"{p:>28}" for p in POLICIES))
    for name, (gaps, exits) in SHAPES.items():
        cells = []
        uncached = 0.0
        for policy in POLICIES:
            got = run_shape(gaps, exits, policy, args.prefix, args.model)
            uncached = max(uncached, got["uncached"])
            share = got["storage"] / got["bill"] if got["bill"] else 0.0
            cells.append(f"${got['bill']:.4f} ({share:4.0%}) sh ${got['shown']:.4f} c{got['creations']}")
        print(f"{name:30} ${uncached:8.4f} " + " ".join(f"{c:>28}" for c in cells))


if __name__ == "__main__":
    main()
