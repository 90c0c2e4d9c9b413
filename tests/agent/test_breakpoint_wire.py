"""Cache breakpoints on the recorded wire (docs/CACHING.md section 4).

A turn that appends more than 20 blocks after the previous request's last breakpoint
would lose that prefix to the provider's 20-block lookback, unless the next request
marks that very block again. Checked on the bytes the fake server received."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.agent import AIAgent
from agent.config import AgentConfig
from agent.events import Done
from agent.providers.base import ProviderSettings
from memory.store import SessionStore
from tests.fakes import Reply, ToolCall

MODEL = "claude-sonnet-5"
PARALLEL = 12  # 12 tool_use + 12 tool_result blocks: more than the 20-block lookback


def make_agent(fake, home: Path, cwd: Path) -> AIAgent:
    settings = ProviderSettings("anthropic", MODEL, "test-key", fake.anthropic_base_url)
    config = AgentConfig(provider=settings, home=home, cwd=cwd)
    return AIAgent(config, SessionStore(home / "state.db"), clock=fake.clock.now)


def wire_blocks(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every cacheable block in prefix order (tools, system, message content), as the
    provider counts them: (where, block)."""
    blocks = [(f"tools[{i}]", tool) for i, tool in enumerate(body.get("tools") or [])]
    system = body.get("system") or []
    system = [{"type": "text", "text": system}] if isinstance(system, str) else system
    blocks += [(f"system[{i}]", block) for i, block in enumerate(system)]
    for m, message in enumerate(body["messages"]):
        content = message["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        blocks += [(f"messages[{m}][{k}]", part) for k, part in enumerate(parts)]
    return blocks


def marked(body: dict[str, Any]) -> list[tuple[int, str, str]]:
    """(flat block index, where, block JSON without its marker) of every marked block."""
    out = []
    for index, (where, block) in enumerate(wire_blocks(body)):
        if "cache_control" in block:
            bare = {k: v for k, v in block.items() if k != "cache_control"}
            out.append((index, where, json.dumps(bare, sort_keys=True)))
    assert "cache_control" not in body, "top-level automatic marker not expected"
    return out


def test_previous_last_breakpoint_is_marked_again_after_a_big_turn(fake_provider, hermes_home,
                                                                   tmp_path):
    for i in range(PARALLEL):
        (tmp_path / f"f{i}.txt").write_text(f"contents of file {i}\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"path": f"f{i}.txt"}) for i in range(PARALLEL)]),
        Reply(text="read them all"),
        Reply(text="you are welcome"),
    )
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    for text in ("read the twelve files", "thanks"):
        events = list(agent.run_turn(text))
        assert isinstance(events[-1], Done) and events[-1].reason == "answer", events
    first, second, third = fake_provider.requests
    assert all(r.status == 200 for r in (first, second, third))

    # the big turn: the second request appended >20 blocks after the first's last marker
    results = second.body["messages"][-1]["content"]
    assert sum(b["type"] == "tool_result" for b in results) == PARALLEL
    uses = second.body["messages"][-2]["content"]
    assert sum(b["type"] == "tool_use" for b in uses) == PARALLEL
    first_marks, second_marks = marked(first.body), marked(second.body)
    appended = len(wire_blocks(second.body)) - 1 - first_marks[-1][0]
    assert appended > 20, appended

    for rec, marks in ((first, first_marks), (second, second_marks), (third, marked(third.body))):
        assert len(marks) <= 4 and rec.breakpoints == len(marks) <= 4, marks
    # the second request marks exactly the block the first one marked last: same
    # position in the prefix, same content
    assert first_marks[-1] in second_marks, (first_marks, second_marks)
    # ... and the last block it sends, for the next request
    assert second_marks[-1][0] == len(wire_blocks(second.body)) - 1
    # nothing lost to the 20-block lookback: the whole first request was read
    assert second.cache_read == first.prompt_tokens > 0
    assert second.miss_reason is None

    # the next turn again marks where the second request ended and reads all of it
    third_marks = marked(third.body)
    assert second_marks[-1] in third_marks, (second_marks, third_marks)
    assert third.cache_read == second.prompt_tokens
