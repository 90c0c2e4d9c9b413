"""The fixed prefix a default session sends on every request: tools + system, in tokens
as the fake Anthropic API counts them (tests/fakes/cache.py), with the share of each
tool and of each system paragraph.

    .venv/bin/python bench/prefix_size.py [--top 15]

A default session: `AgentConfig` defaults (toolsets, no web backend, no MCP), an empty
home (no memory, no skills) and a project with a one-line AGENTS.md; one turn "hi".
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import tempfile  # noqa: E402
from typing import Any  # noqa: E402

from agent.agent import AIAgent  # noqa: E402
from agent.config import AgentConfig  # noqa: E402
from bench._legs import ANTHROPIC  # noqa: E402
from memory.store import SessionStore  # noqa: E402
from tests.fakes import FakeProvider, Reply  # noqa: E402
from tests.fakes.anthropic_api import build_blocks  # noqa: E402
from tests.fakes.cache import count_tokens  # noqa: E402


def measure() -> dict[str, Any]:
    """Tokens of the tools and system blocks of a default session's first request."""
    with tempfile.TemporaryDirectory(prefix="hermes-prefix-") as tmp, FakeProvider() as fake:
        home, cwd = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        cwd.mkdir()
        (cwd / "AGENTS.md").write_text("Run the tests with `pytest -q`.\n")
        store = SessionStore(home / "state.db")
        agent = AIAgent(AgentConfig(provider=ANTHROPIC.settings(fake), home=home, cwd=cwd),
                        store, approve=lambda *_: True, clock=fake.clock.now)
        try:
            fake.script(Reply(text="hello"))
            list(agent.run_turn("hi"))
            body = fake.requests[-1].body
        finally:
            agent.close()
            store.close()
    return tokens(body)


def tokens(body: dict[str, Any]) -> dict[str, Any]:
    """The fixed prefix of an Anthropic request `body`, in the fake API's tokens: per
    tool, the system's paragraphs, and the totals."""
    blocks = build_blocks(body)
    tools = {tool["name"]: block.tokens for tool, block in
             zip(body.get("tools") or [], [b for b in blocks if b.section == "tools"],
                 strict=True)}
    system = "\n\n".join(part["text"] for part in body.get("system") or [])
    paragraphs = [(count_tokens(p), p) for p in system.split("\n\n") if p.strip()]
    system_tokens = sum(b.tokens for b in blocks if b.section == "system")
    return {"tools": tools, "tool_tokens": sum(tools.values()), "system_tokens": system_tokens,
            "paragraphs": paragraphs, "total": sum(tools.values()) + system_tokens}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    res = measure()
    print(f"fixed prefix: {res['total']:,} tokens = tools {res['tool_tokens']:,} "
          f"({len(res['tools'])} tools) + system {res['system_tokens']:,}")
    print("\ntools:")
    for name, tokens in sorted(res["tools"].items(), key=lambda kv: -kv[1]):
        print(f"  {tokens:>5}  {name}")
    print(f"\nsystem paragraphs (top {args.top}):")
    for tokens, text in sorted(res["paragraphs"], key=lambda p: -p[0])[:args.top]:
        print(f"  {tokens:>5}  {' '.join(text.split())[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
