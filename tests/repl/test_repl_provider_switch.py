"""`/model gpt-5.2` in an Anthropic REPL session with OpenAI's key in HERMES_HOME/.env:
the session moves to OpenAI (the notice says the whole prompt is re-sent uncached and
what that costs), the next request goes to OpenAI's endpoint with the same system
prompt naming the new model, /usage prices each model's calls, `/model claude-...`
moves it back (its cache still warm), and `--resume` goes on where it was left (wire
tier: the REPL in a pty, the real SDKs against the fake server)."""

from __future__ import annotations

import re

import pytest

from tests.fakes import Reply
from tests.helpers import anthropic_env, hermes

pytestmark = pytest.mark.wire

FIRST = "claude-sonnet-5-5"


def _system_text(record) -> str:
    """The system prompt's text as one provider or the other received it."""
    if record.api == "anthropic":
        return "".join(block["text"] for block in record.body["system"])
    (system,) = [item for item in record.body["input"] if item.get("role") == "system"]
    return "".join(part["text"] for part in system["content"])


def test_model_of_another_configured_provider_moves_the_session(spawn_repl, fake_provider,
                                                                 hermes_home):
    (hermes_home / ".env").write_text(f"OPENAI_API_KEY=test-openai-key\n"
                                      f"OPENAI_BASE_URL={fake_provider.openai_base_url}\n")
    (hermes_home / "config.yaml").write_text("openai: {api: responses}\n")
    fake_provider.script(Reply(text="answer one"), Reply(text="answer two"),
                         Reply(text="answer three"), Reply(text="answer four"))
    repl = spawn_repl()
    repl.send("first")
    repl.expect("answer one")
    repl.prompt()
    repl.send("/model gpt-5.2")
    repl.expect(f"Model {FIRST} -> gpt-5.2, provider Anthropic -> OpenAI.")
    notice = " ".join(repl.prompt().split())  # the notice wraps at the terminal width
    assert re.search(r"The cache is per provider and model: the next call re-sends ~[\d,]+ "
                     r"tokens uncached, est\. \$[\d.]+; one deliberate miss", notice), notice
    repl.send("second")
    repl.expect("answer two")
    repl.prompt()
    first, switched = fake_provider.requests
    assert (first.api, first.model) == ("anthropic", FIRST)
    assert (switched.api, switched.model) == ("responses", "gpt-5.2")
    assert switched.headers.get("authorization") == "Bearer test-openai-key"
    # the same system prompt, naming the model it now talks to
    assert _system_text(switched) == _system_text(first).replace(
        f"Model: {FIRST} (anthropic)", "Model: gpt-5.2 (openai)")
    assert f"Model: {FIRST} (anthropic)" in _system_text(first)

    repl.send("/usage")
    usage = repl.expect("hit rate by turn")
    assert re.search(rf"{FIRST}\s+1 call\s+\$[\d.]+", usage), usage
    assert re.search(r"gpt-5\.2\s+1 call\s+\$[\d.]+", usage), usage
    repl.prompt()

    repl.send(f"/model {FIRST}")
    repl.expect(f"Model gpt-5.2 -> {FIRST}, provider OpenAI -> Anthropic.")
    assert "still warm" in " ".join(repl.prompt().split())
    repl.send("third")
    repl.expect("answer three")
    repl.prompt()
    back = fake_provider.last
    assert (back.api, back.model) == ("anthropic", FIRST) and back.cache_read > 0
    assert _system_text(back) == _system_text(first)

    repl.send("/model gpt-5.2")
    repl.expect("provider Anthropic -> OpenAI")
    repl.prompt()
    repl.send("/exit")
    repl.expect("resume with: hermes --resume ")
    session_id = repl.expect("\n").strip()
    assert repl.exit_code() == 0

    env = anthropic_env(hermes_home, fake_provider)
    result = hermes(["--resume", session_id, "-q", "fourth"], env)
    assert result.returncode == 0, result.stderr
    assert "answer four" in result.stdout
    resumed = fake_provider.last
    assert (resumed.api, resumed.model) == ("responses", "gpt-5.2")
    assert _system_text(resumed) == _system_text(switched)


def test_without_openai_key_the_switch_is_refused(spawn_repl, fake_provider):
    repl = spawn_repl()
    repl.send("/model gpt-5.2")
    repl.expect("gpt-5.2 is an OpenAI model and this session talks to Anthropic; hermes has "
                "no OpenAI key: set OPENAI_API_KEY")
    repl.prompt()
    fake_provider.script(Reply(text="still here"))
    repl.send("hello")
    repl.expect("still here")
    assert fake_provider.last.api == "anthropic" and fake_provider.last.model == FIRST
