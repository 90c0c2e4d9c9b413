"""DeepSeek as a provider of its own: `-m deepseek-v4-flash` selects it, a
session against the fake DeepSeek API reads its prefix from turn 2 and costs what the
fake bills, the thinking mode's `reasoning_content` goes back with every assistant
message - also after `--resume` - and the fake refuses a history without it as the API
does. Wire tier: the real openai SDK against the fake."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agent.agent import AIAgent
from agent.config import AgentConfig
from agent.providers.base import ProviderSettings
from frontend.config.provider_choice import resolve_provider
from memory.store import SessionStore
from tests.fakes import FakeProvider, Reply, gemini_session
from tests.fakes import ToolCall as FakeCall
from tests.fakes.deepseek_api import MISSING_REASONING
from tests.helpers import run

MODEL = "deepseek-v4-flash"


@pytest.fixture
def fake():
    with FakeProvider() as server:
        yield server


def project(tmp_path: Path) -> tuple[Path, Path]:
    return gemini_session.project(tmp_path, repeats=300)  # a prefix of ~2,500 tokens


def agent(fake: FakeProvider, home: Path, cwd: Path, session_id: str | None = None) -> AIAgent:
    settings = ProviderSettings("deepseek", MODEL, "test-key", fake.deepseek_base_url)
    return AIAgent(AgentConfig(provider=settings, home=home, cwd=cwd),
                   SessionStore(home / "state.db"), clock=fake.clock.now, session_id=session_id)


def calls(fake: FakeProvider):
    return fake.requests_for("deepseek")


def test_the_model_names_select_deepseek_with_its_key_and_url(tmp_path):
    from frontend.config.settings import Settings

    settings = Settings(tmp_path)
    for model in ("deepseek-v4-flash", "deepseek-v4-pro", "deepseek-chat", "deepseek-reasoner"):
        chosen = resolve_provider(settings, model=model, environ={
            "DEEPSEEK_API_KEY": "k", "DEEPSEEK_BASE_URL": "http://127.0.0.1:9/x"})
        assert (chosen.provider, chosen.model, chosen.api_key, chosen.base_url) == (
            "deepseek", model, "k", "http://127.0.0.1:9/x")


def test_a_session_reads_its_prefix_from_turn_two_and_costs_the_bill(fake, tmp_path):
    home, cwd = project(tmp_path)
    session = agent(fake, home, cwd)
    fake.script(Reply(tool_calls=[FakeCall("read_file", {"path": "notes.txt"})]),
                Reply(text="It says 42."))
    run(session, "what do the notes say?")  # a tool loop: two calls
    for turn in range(4):
        run(session, f"question {turn}")
    session.close()
    sent = calls(fake)
    assert all(r.status == 200 for r in sent), [r.error for r in sent]
    assert len(sent) == 6
    # from the second call: what was read vs what could be (the previous prompt)
    read = sum(r.cache_read for r in sent[1:])
    could = sum(prev.prompt_tokens for prev in sent[:-1])
    assert read >= 0.9 * could, (read, could)
    assert all(r.cache_read % 64 == 0 for r in sent)  # 64-token units
    rows = SessionStore(home / "state.db").usage_rows(session.session_id)
    shown = math.fsum(r["cost_usd"] for r in rows)
    assert math.isclose(shown, fake.deepseek.bill(fake.requests), rel_tol=1e-6), (
        shown, fake.deepseek.bill(fake.requests))


def test_reasoning_goes_back_unaltered_with_tools_also_after_a_resume(fake, tmp_path):
    home, cwd = project(tmp_path)
    session = agent(fake, home, cwd)
    fake.script(Reply(tool_calls=[FakeCall("read_file", {"path": "notes.txt"})],
                      thinking="I should read the notes first."),
                Reply(text="42.", thinking="The file says 42."))
    run(session, "what do the notes say?")
    session_id = session.session_id
    session.close()
    resumed = agent(fake, home, cwd, session_id=session_id)  # another process: the store's copy
    fake.script(Reply(tool_calls=[FakeCall("read_file", {"path": "notes.txt"})]), Reply(text="still 42"))
    run(resumed, "check again")
    resumed.close()
    sent = calls(fake)
    assert [r.status for r in sent] == [200] * 4, [r.error for r in sent]
    said = [m for m in sent[-1].body["messages"] if m["role"] == "assistant"]
    assert [m["reasoning_content"] for m in said[:2]] == [
        "I should read the notes first.", "The file says 42."]


def test_the_fake_refuses_a_tool_history_without_reasoning_as_deepseek_does(fake):
    import openai

    client = openai.OpenAI(api_key="k", base_url=fake.deepseek_base_url, max_retries=0)
    tools = [{"type": "function", "function": {"name": "t", "parameters": {"type": "object"}}}]
    history = [{"role": "user", "content": "hi"},
               {"role": "assistant", "content": None,
                "tool_calls": [{"id": "c1", "type": "function",
                                "function": {"name": "t", "arguments": "{}"}}]},
               {"role": "tool", "tool_call_id": "c1", "content": "done"}]
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model=MODEL, messages=history, tools=tools, stream=True)
    assert MISSING_REASONING in str(refused.value)
    history[1]["reasoning_content"] = "thought"
    fine = client.chat.completions.create(model=MODEL, messages=history, tools=tools,
                                          stream=True)
    assert [c for c in fine]  # answered
    client.close()
    assert json.loads(fake.requests_for("deepseek")[-1].raw)["messages"][1]["reasoning_content"]
