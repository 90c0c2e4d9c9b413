"""DeepSeek cost bench: one 20-turn session on deepseek-v4-flash at peak and off-peak
hours - through the real DeepSeek adapter and the real openai SDK against the fake
DeepSeek API, which caches prefixes in 64-token units and bills each request with
genai-prices' DeepSeek price in force at its time (tests/fakes/deepseek_api.py).

    .venv/bin/python bench/deepseek_cost.py [--turns 20] [--prefix 8000] [--model deepseek-v4-flash]

The session: tools + a large project context (the prefix), then `--turns` questions of
~60 tokens each; every third turn runs a tool (a call and its result) before its answer,
so the thinking mode's `reasoning_content` goes back with every assistant message. Each
row: the hour it runs at (UTC), the fake's bill, what hermes shows (each call priced by
agent.cost.pricing at that time), the share of the prompt read from the cache from the
second call on, and what the same tokens would cost with no cache.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent.cancel import CancelToken  # noqa: E402 - after the path fix above
from agent.cost import pricing  # noqa: E402
from agent.messages import Message, Request, SystemBlock, ToolSchema  # noqa: E402
from agent.providers.base import ProviderSettings, StreamDone  # noqa: E402
from agent.providers.deepseek.adapter import DeepSeekProvider  # noqa: E402
from tests.fakes import FakeProvider, Reply  # noqa: E402
from tests.fakes import ToolCall as FakeCall  # noqa: E402

HOURS = {"peak (02:00 UTC)": 2, "off-peak (12:00 UTC)": 12}
TOOLS = [ToolSchema(f"tool_{i}", "A tool of the session. " * 8,
                    {"type": "object", "properties": {"path": {"type": "string"}}}) for i in range(12)]


def system(prefix_tokens: int) -> list[SystemBlock]:
    context = "Project context: " + "name things for what they do; " * (prefix_tokens * 4 // 31)
    return [SystemBlock("You are hermes, a careful agent.", "stable", "installation"),
            SystemBlock(context, "stable", "project")]


def session(turns: int, prefix: int, model: str, at: datetime) -> dict[str, float]:
    with FakeProvider() as fake:
        fake.deepseek.now = lambda: at
        adapter = DeepSeekProvider(ProviderSettings("deepseek", model, "bench-key",
                                                    fake.deepseek_base_url))
        shown, messages = 0.0, []
        for turn in range(turns):
            messages.append(Message("user", f"Question {turn}: what does part {turn} do?"))
            if turn % 3 == 2:
                fake.script(Reply(tool_calls=[FakeCall("tool_0", {"path": f"part{turn}.py"})]))
            fake.script(Reply(text=f"Part {turn} does what its name says, as the context notes."))
            while True:
                request = Request(model=model, system=system(prefix), messages=list(messages),
                                  tools=TOOLS, session_id="bench")
                reply = next(i.reply for i in adapter.stream(request, CancelToken())
                             if isinstance(i, StreamDone))
                shown += pricing.cost(reply.usage, model, at=at) or 0.0
                messages.append(reply.message)
                if not reply.message.tool_calls:
                    break
                call = reply.message.tool_calls[0]
                messages.append(Message("tool", f"contents of {call.arguments}",
                                        tool_call_id=call.id, tool_name=call.name))
        adapter.close()
        sent = fake.requests_for("deepseek")
        prompt = sum(r.prompt_tokens for r in sent[1:])
        price = pricing.prices(model, at=at)
        assert price is not None
        out = sum((r.usage or {}).get("completion_tokens", 0) for r in sent)
        no_cache = (sum(r.prompt_tokens for r in sent) * price.input + out * price.output) / 1e6
        return {"bill": fake.deepseek.bill(fake.requests), "shown": shown, "calls": len(sent),
                "read": sum(r.cache_read for r in sent[1:]) / prompt if prompt else 0.0,
                "no_cache": no_cache}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--prefix", type=int, default=8_000)
    parser.add_argument("--model", default="deepseek-v4-flash")
    args = parser.parse_args(argv)
    day = datetime.now(UTC).date()
    print(f"{args.model}, {args.turns} turns, prefix ~{args.prefix:,} tokens, on {day}")
    print(f"{'when':22} {'calls':>5} {'bill':>10} {'shown':>10} {'read':>6} {'no cache':>10}")
    for name, hour in HOURS.items():
        at = datetime(day.year, day.month, day.day, hour, tzinfo=UTC)
        got = session(args.turns, args.prefix, args.model, at)
        print(f"{name:22} {got['calls']:5} ${got['bill']:9.5f} ${got['shown']:9.5f} "
              f"{got['read']:6.1%} ${got['no_cache']:9.5f}")


if __name__ == "__main__":
    main()
