"""Prefix-sharing bench: what a NEW session, a sub-agent and a new gateway chat read on
their first request from prefixes other sessions wrote, and what a turn that
delegates to 3 sub-agents costs. Real AIAgent against the fake provider's cache model.

    .venv/bin/python bench/prefix_sharing.py

Anthropic legs: claude-sonnet-5; OpenAI legs: gpt-5 (128-token automatic reads).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import tempfile  # noqa: E402
from dataclasses import replace  # noqa: E402

from agent.agent import AIAgent  # noqa: E402
from agent.config import AgentConfig  # noqa: E402
from agent.providers.base import ProviderSettings  # noqa: E402
from bench._fakes import filler, make_project  # noqa: E402
from memory.store import SessionStore  # noqa: E402
from tests.fakes import FakeProvider, Reply, ToolCall  # noqa: E402


def _config(fake: FakeProvider, home: Path, cwd: Path, api: str, **kw) -> AgentConfig:
    if api == "anthropic":
        settings = ProviderSettings("anthropic", "claude-sonnet-5", "k", fake.anthropic_base_url)
    else:
        settings = ProviderSettings("openai", "gpt-5", "k", fake.openai_base_url)
    return AgentConfig(provider=settings, home=home, cwd=cwd, **kw)


def _turn(agent: AIAgent, text: str) -> None:
    for _ in agent.run_turn(text):
        pass


def _share(rec) -> tuple[int, int]:
    return rec.cache_read, rec.prompt_tokens


def measure(api: str) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    with FakeProvider() as fake, tempfile.TemporaryDirectory() as tmp:
        home, cwd = Path(tmp) / "home", Path(tmp) / "proj"
        home.mkdir()
        make_project(cwd)
        (cwd / "AGENTS.md").write_text("# Project rules\n" + filler(7, 600) + "\n")
        (home / "memories").mkdir(exist_ok=True)
        store = SessionStore(home / "state.db")
        config = _config(fake, home, cwd, api)
        first = AIAgent(config, store, clock=fake.clock.now)
        fake.script(Reply(text="hello"))
        _turn(first, "Hi")
        fake.clock.advance(30)
        second = AIAgent(config, store, clock=fake.clock.now)
        fake.script(Reply(text="hello again"))
        before = len(fake.requests)
        _turn(second, "Hi there")
        out["new session"] = _share(fake.requests[before])
        gateway = replace(config, source="gateway", owner="alice")
        chat = AIAgent(gateway, store, clock=fake.clock.now)
        fake.script(Reply(text="hi"))
        before = len(fake.requests)
        _turn(chat, "Hello from the gateway")
        out["gateway chat"] = _share(fake.requests[before])
        # delegation: the parent calls delegate_task 3 times in parallel
        calls = [ToolCall("delegate_task", {"goal": f"Summarise src/mod_0{i}.py"}) for i in range(3)]
        fake.script(Reply(tool_calls=calls), Reply(text="a"), Reply(text="b"), Reply(text="c"),
                    Reply(text="all done"))
        before = len(fake.requests)
        rows_before = len(store.usage_rows(second.session_id))
        _turn(second, "Delegate three summaries.")
        records = fake.requests[before:]
        children = [r for r in records[1:4]]
        out["sub-agent"] = _share(children[0])
        out["3 sub-agents (all)"] = (sum(r.cache_read for r in children),
                                     sum(r.prompt_tokens for r in children))
        rows = store.usage_rows(second.session_id)[rows_before:]
        out["delegation turn cost"] = (round(sum(r["cost_usd"] or 0 for r in rows) * 1e6), 0)
        for agent in (first, second, chat):
            agent.close()
    return out


def main() -> None:
    for api in ("anthropic", "openai"):
        for name, (read, total) in measure(api).items():
            if name == "delegation turn cost":
                print(f"{api:9} {name:22} ${read / 1e6:.6f}")
            else:
                print(f"{api:9} {name:22} read {read:6,} of {total:6,} = {100 * read / max(1, total):5.1f}%")


if __name__ == "__main__":
    main()
