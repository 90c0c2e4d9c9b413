"""Helpers for the compression tests: a real agent on the fake server, scripted turns."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.agent import AIAgent
from agent.config import AgentConfig
from agent.events import Event
from agent.providers.base import ProviderSettings
from memory.store import SessionStore
from tests.fakes import Reply, ToolCall

MODEL = "claude-sonnet-5"
LINES = 40
DEFAULT_SUMMARY = "## Goal\nCheck the parser.\n## Done so far\nRead some files."


class Session:
    """A real AIAgent against the fake provider, plus helpers to grow its history."""

    def __init__(self, fake, home: Path, cwd: Path, **config) -> None:
        self.fake, self.home, self.cwd = fake, home, cwd
        self.replies: list = []  # what the fake answers to the agent's own calls, in order
        self.summaries: list = []  # what it answers to summary calls (text or an Error)
        fake.responder = self._respond
        settings = ProviderSettings("anthropic", MODEL, "test", fake.anthropic_base_url)
        config.setdefault("toolsets", ("file",))
        config.setdefault("context_windows", {MODEL: 4000})
        config.setdefault("compression_threshold", 10.0)  # manual only unless a test says so
        self.store = SessionStore(home / "state.db")
        self.agent = AIAgent(AgentConfig(provider=settings, home=home, cwd=cwd, **config),
                             self.store)
        self.turns = 0

    def _respond(self, record):
        queue = self.replies if "tools" in record.body else self.summaries
        if not queue:
            return Reply(text=DEFAULT_SUMMARY if queue is self.summaries else "ok")
        item = queue.pop(0)
        return Reply(text=item) if isinstance(item, str) else item

    def tool_turn(self, reads: int = 1) -> list[Event]:
        """One user turn in which the model reads `reads` files, then answers."""
        n = self.turns
        self.turns += 1
        replies = []
        for k in range(reads):
            name = f"f{n}_{k}.txt"
            body = "\n".join(f"secret-{n}-{k}-{i} of the parser source" for i in range(LINES))
            (self.cwd / name).write_text(body)
            replies.append(Reply(text=f"reading {name}", tool_calls=[
                ToolCall("read_file", {"path": name})]))
        self.replies.extend([*replies, Reply(text=f"answer {n}: the parser looks fine")])
        return list(self.agent.run_turn(f"request {n}: please check part {n} of the parser"))

    def snapshot(self) -> dict:
        """Everything compression must not touch when it fails or only previews."""
        sid = self.agent.session_id
        return {
            "session_id": sid,
            "history": list(self.agent.conversation.messages),
            "stable": self.agent.stable,
            "sessions": [(s["id"], s["parent_id"], s["system_prompt"])
                         for s in self.store.list_sessions(limit=100)],
            "messages": self.store.messages(sid),
            "usage": self.store.usage_rows(sid),
        }

    def summary_requests(self) -> list:
        return [r for r in self.fake.requests if "tools" not in r.body]


@pytest.fixture
def session(fake_provider, hermes_home: Path, tmp_path: Path):
    """Factory: session(**AgentConfig overrides) -> Session."""
    made: list[Session] = []

    def make(**config) -> Session:
        cwd = tmp_path / f"work{len(made)}"
        cwd.mkdir()
        made.append(Session(fake_provider, hermes_home, cwd, **config))
        return made[-1]

    yield make
    for item in made:
        item.agent.close()
        item.store.close()
