"""Helpers for the compression tests: a real agent on the in-process scripted model
(`session`, fast tier) or on the fake HTTP server (`wire_session`, for cache reads)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.agent import AIAgent
from agent.config import AgentConfig
from agent.events import Event
from agent.providers.base import ProviderSettings
from memory.store import SessionStore
from tests.fakes import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import is_summary_call as is_summary

MODEL = "claude-sonnet-5"
LINES = 40
DEFAULT_SUMMARY = "## Goal\nCheck the parser.\n## Done so far\nRead some files."


class Session:
    """A real AIAgent on a scripted model or the fake server (`fake`), plus helpers to
    grow its history. `calls` are the fake's records or the model's calls: both have
    `body` (the Anthropic request), `status` and `prompt_tokens`."""

    def __init__(self, fake, home: Path, cwd: Path, clock=None, **config) -> None:
        self.fake, self.home, self.cwd = fake, home, cwd
        self.replies: list = []  # what the model answers to the agent's own calls, in order
        self.summaries: list = []  # what it answers to summary calls (text or an error)
        fake.responder = self._respond
        scripted = isinstance(fake, ScriptedModel)
        url = "http://127.0.0.1:9" if scripted else fake.anthropic_base_url
        model = config.pop("model", MODEL)
        settings = ProviderSettings("anthropic", model, "test", url)
        config.setdefault("toolsets", ("file",))
        config.setdefault("context_windows", {model: 4000})
        config.setdefault("compression_threshold", 10.0)  # manual only unless a test says so
        self.store = SessionStore(home / "state.db")
        self.agent = AIAgent(AgentConfig(provider=settings, home=home, cwd=cwd, **config),
                             self.store, provider=fake if scripted else None,
                             **({"clock": clock} if clock else {}))
        self.turns = 0

    @property
    def calls(self) -> list:
        return self.fake.calls if isinstance(self.fake, ScriptedModel) else self.fake.requests

    @property
    def last(self):
        return self.calls[-1]

    def limit_context(self, room: int) -> None:
        """From now on, a prompt more than `room` tokens larger than the last one is too long."""
        self.fake.context_window = self.last.prompt_tokens + room

    def _respond(self, record):
        if hasattr(record, "body"):
            summary = is_summary(record.body)
        else:  # the scripted model hands over the neutral Request
            summary = not record.tools or record.messages[-1].kind == "compaction"
        queue = self.summaries if summary else self.replies
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
        return [r for r in self.calls if is_summary(r.body)]


def _factory(backend, home: Path, tmp_path: Path):
    made: list[Session] = []

    def make(**config) -> Session:
        cwd = tmp_path / f"work{len(made)}"
        cwd.mkdir()
        made.append(Session(backend, home, cwd, **config))
        return made[-1]

    return make, made


@pytest.fixture
def session(hermes_home: Path, tmp_path: Path):
    """Factory on the scripted model (fast tier): session(**AgentConfig overrides)."""
    make, made = _factory(ScriptedModel(), hermes_home, tmp_path)
    yield make
    for item in made:
        item.agent.close()
        item.store.close()


@pytest.fixture
def wire_session(fake_provider, hermes_home: Path, tmp_path: Path):
    """The same factory on the fake HTTP server: for what the provider caches and bills."""
    make, made = _factory(fake_provider, hermes_home, tmp_path)
    yield make
    for item in made:
        item.agent.close()
        item.store.close()
