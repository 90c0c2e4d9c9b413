"""A known model picks its provider, also mid-session: `/model gpt-5.2` in an Anthropic
session moves it to OpenAI when OpenAI's key is configured (the notice says what the
move costs), and is refused with the reason otherwise; a model nobody catalogues, or a
session on a server that serves any name, stays where it is (fast tier: the decision,
the session's choices and row, the scripted model for the calls)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from agent.config import AgentConfig
from agent.messages import Message, block_json
from agent.providers.anthropic.adapter import _message_blocks
from agent.providers.base import ProviderSettings
from agent.providers.openai.responses_map import _items
from frontend import commands
from frontend.config.settings import Settings
from frontend.model_switch import configured_providers, destination, resumed_on
from tests.fakes import Reply
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent

ANTHROPIC = ProviderSettings("anthropic", "claude-sonnet-5", "a-key", "http://127.0.0.1:9")
OPENAI = ProviderSettings("openai", "gpt-5.2", "o-key", "http://127.0.0.1:9/v1", api="responses")
HOME = Path("/nonexistent")


def config(*others: ProviderSettings, source: str = "cli", default=ANTHROPIC) -> AgentConfig:
    return AgentConfig(provider=default, home=HOME, cwd=HOME, source=source,
                       providers=(default, *others))


def test_a_model_of_a_configured_provider_moves_the_session_there():
    both = config(OPENAI)
    assert destination("gpt-5.2", "anthropic", both).provider == "openai"
    assert destination("gpt-5.2-2025-12-11", "anthropic", both).provider == "openai"
    assert destination("claude-opus-5", "openai", both).provider == "anthropic"
    assert destination("claude-opus-5", "anthropic", both).provider == "anthropic"
    # nobody catalogues it: the session's provider decides; a router serves any name
    assert destination("my-finetune", "anthropic", both).provider == "anthropic"
    assert destination("claude-sonnet-5", "openrouter", both).provider == "openrouter"
    assert all(destination(m, p, both).refusal is None
               for m, p in (("gpt-5.2", "anthropic"), ("my-finetune", "anthropic")))


def test_a_model_of_an_unconfigured_provider_is_refused_with_the_key_to_set():
    alone = config()
    where = destination("gpt-5.2", "anthropic", alone)
    assert where.provider == "anthropic"
    assert where.refusal == ("gpt-5.2 is an OpenAI model and this session talks to Anthropic; "
                             "hermes has no OpenAI key: set OPENAI_API_KEY (shell or "
                             "/nonexistent/.env) to switch to it")
    gateway = destination("gpt-5.2", "anthropic", config(source="gateway")).refusal
    assert gateway is not None and gateway.endswith("this gateway has no OpenAI key configured")
    assert "OPENAI_API_KEY" not in gateway  # a client cannot set the operator's variables


def test_configured_providers_are_the_ones_with_a_key():
    env = {"OPENAI_API_KEY": "o-key", "OPENAI_BASE_URL": "http://127.0.0.1:7/v1"}
    found = configured_providers(Settings(home=HOME), ANTHROPIC, env)
    assert [(s.provider, s.api_key, s.base_url) for s in found] == [
        ("anthropic", "a-key", "http://127.0.0.1:9"), ("openai", "o-key", "http://127.0.0.1:7/v1")]
    assert found[1].model == "gpt-5.2" or found[1].model  # the provider's default model
    assert configured_providers(Settings(home=HOME), ANTHROPIC, {}) == (ANTHROPIC,)
    # config.yaml's key without `provider:` is the default's, never lent to another
    keyed = Settings(home=HOME, raw={"api_key": "sk-ant-config"})
    assert configured_providers(keyed, ANTHROPIC, {}) == (ANTHROPIC,)
    named = Settings(home=HOME, raw={"provider": "openai", "api_key": "sk-config"})
    assert configured_providers(named, ANTHROPIC, {})[1].api_key == "sk-config"
    # a base URL that cannot work leaves the provider out (switching to it is refused)
    bad = {"OPENAI_API_KEY": "o-key", "OPENAI_BASE_URL": "127.0.0.1:7"}
    warnings: list[str] = []
    assert configured_providers(Settings(home=HOME), ANTHROPIC, bad, warnings) == (ANTHROPIC,)
    assert warnings == ["OPENAI_BASE_URL is not a usable URL: '127.0.0.1:7' (it needs http:// "
                        "or https:// and a host): /model cannot move a session to OpenAI until "
                        "it is fixed"]


def test_switching_moves_choices_prompt_and_row_and_back(tmp_path: Path):
    model = ScriptedModel(Reply(text="one"), Reply(text="two"))
    agent = scripted_agent(model, tmp_path / "home", tmp_path, providers=(OPENAI,))
    run(agent, "hi")
    reply = commands.model(commands.Handle(agent), "gpt-5.2")
    assert reply.level == "warning" and reply.changed == "model"
    assert reply.text.startswith("Model claude-sonnet-5 -> gpt-5.2, provider Anthropic -> OpenAI. "
                                 "The cache is per provider and model: the next call re-sends ~")
    assert "uncached, est. $" in reply.text
    choices = agent.session.choices
    assert (choices.model, choices.provider, choices.api) == ("gpt-5.2", "openai", "responses")
    assert "Model: gpt-5.2 (openai)" in agent.stable and "(anthropic)" not in agent.stable
    row = agent.store.get_session(agent.session_id)
    assert (row["model"], row["provider"], row["base_url"]) == ("gpt-5.2", "openai",
                                                                "http://127.0.0.1:9/v1")
    assert agent.caller.api_mode == "responses" and agent.caller.last_sent is None
    back = commands.model(commands.Handle(agent), "claude-sonnet-5")
    assert "provider OpenAI -> Anthropic" in back.text and "still warm" in back.text
    assert agent.session.choices.api == "" and "Model: claude-sonnet-5 (anthropic)" in agent.stable
    run(agent, "again")  # the first client (the scripted model) serves Anthropic again
    assert [r.model for r in model.requests] == ["claude-sonnet-5", "claude-sonnet-5"]


def test_without_the_key_the_session_stays(tmp_path: Path):
    agent = scripted_agent(ScriptedModel(Reply(text="one")), tmp_path / "home", tmp_path)
    reply = commands.model(commands.Handle(agent), "gpt-5.2")
    assert reply.level == "error" and "set OPENAI_API_KEY" in reply.text
    assert reply.text.endswith("This session still uses claude-sonnet-5.")
    assert (agent.model, agent.provider_name) == ("claude-sonnet-5", "anthropic")


def test_a_stored_session_resumes_on_its_own_provider_where_configured():
    row = {"model": "gpt-5.2", "provider": "openai"}
    moved = resumed_on(config(OPENAI), row)
    assert (moved.provider.provider, moved.provider.model, moved.provider.api_key) == \
        ("openai", "gpt-5.2", "o-key")
    assert moved.settings_for("anthropic") == ANTHROPIC  # and may switch back
    assert resumed_on(config(), row) == config()  # no key here: the resume says so
    same = resumed_on(config(), {"model": "claude-opus-5", "provider": "anthropic"})
    assert same.provider == replace(ANTHROPIC, model="claude-opus-5")


def test_each_api_gets_only_its_own_reasoning_items():
    thinking = block_json({"type": "thinking", "thinking": "hm", "signature": "sig"})
    item = block_json({"type": "reasoning", "id": "rs_1", "summary": [],
                       "encrypted_content": "opaque"})
    message = Message("assistant", "answer", reasoning=(thinking, item))
    _role, blocks = _message_blocks(message)
    assert [b["type"] for b in blocks] == ["thinking", "text"]
    assert [i.get("type", i.get("role")) for i in _items(message)] == ["reasoning", "assistant"]
    assert json.loads(item)["encrypted_content"] == "opaque"


def test_models_of_the_old_provider_are_not_sent_to_the_new_one(tmp_path: Path):
    from agent.compression.request import summary_model
    from agent.providers import models

    assert models.serves("anthropic", "claude-haiku-4-5") and models.serves("openai", "llama3")
    assert not models.serves("openai", "claude-haiku-4-5")
    assert models.serves("openrouter", "claude-haiku-4-5")  # a router serves any name
    agent = scripted_agent(ScriptedModel(), tmp_path / "home", tmp_path, providers=(OPENAI,),
                           compression_model="claude-haiku-4-5")
    assert summary_model(agent.config, agent.session) == "claude-haiku-4-5"
    commands.model(commands.Handle(agent), "gpt-5.2")
    assert summary_model(agent.config, agent.session) == "gpt-5.2"  # its own, not Anthropic's


def test_a_new_session_after_a_move_starts_on_the_new_provider(tmp_path: Path):
    agent = scripted_agent(ScriptedModel(), tmp_path / "home", tmp_path, providers=(OPENAI,))
    commands.model(commands.Handle(agent), "gpt-5.2")
    old = agent.session_id
    agent.new_session()
    assert agent.session_id != old and agent.session.choices.api == "responses"
    row = agent.store.get_session(agent.session_id)
    assert (row["model"], row["provider"], row["base_url"]) == ("gpt-5.2", "openai",
                                                                "http://127.0.0.1:9/v1")
    assert "Model: gpt-5.2 (openai)" in agent.stable
