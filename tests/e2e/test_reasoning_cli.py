"""`hermes -q --reasoning` and `reasoning:` in config.yaml, through the real CLI and the
fake API: the request carries the settings, --json leaves the thinking out, and a
setting the model refuses is one clear line before any call."""

from __future__ import annotations

import json

import pytest

from tests.fakes import Reply
from tests.helpers import anthropic_env, hermes

pytestmark = pytest.mark.wire  # runs the real CLI


def test_flag_sends_thinking_and_json_leaves_it_out(fake_provider, hermes_home, tmp_path):
    fake_provider.script(Reply(text="forty-two", thinking="SECRET-CHAIN of thought"))
    env = anthropic_env(hermes_home, fake_provider)
    done = hermes(["-q", "answer", "--reasoning", "4096 effort=medium", "--json"], env,
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    body = fake_provider.last.body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert body["output_config"] == {"effort": "medium"} and body["max_tokens"] > 4096
    result = json.loads(done.stdout)
    assert result["answer"] == "forty-two"
    assert "SECRET-CHAIN" not in done.stdout + done.stderr
    assert result["usage"]["output"] == fake_provider.last.usage["output_tokens"]


def test_config_default_and_flag_over_it(fake_provider, hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text("reasoning:\n  thinking: adaptive\n  effort: low\n")
    env = anthropic_env(hermes_home, fake_provider)
    assert hermes(["-q", "one"], env, cwd=tmp_path).returncode == 0
    assert fake_provider.last.body["thinking"] == {"type": "adaptive"}
    assert fake_provider.last.body["output_config"] == {"effort": "low"}
    assert hermes(["-q", "two", "--reasoning", "off"], env, cwd=tmp_path).returncode == 0
    assert "thinking" not in fake_provider.last.body


@pytest.mark.parametrize("args, config, words", [
    (["--reasoning", "lots"], "", "--reasoning: 'lots' is not a thinking setting"),
    (["--reasoning", "adaptive", "-m", "claude-haiku-4-5"], "",
     "claude-haiku-4-5 does not support adaptive thinking"),
    ([], "reasoning: {budget_tokens: 2048}\n", "unknown key 'budget_tokens'"),
])
def test_refused_settings_are_one_line(fake_provider, hermes_home, tmp_path, args, config, words):
    if config:
        (hermes_home / "config.yaml").write_text(config)
    done = hermes(["-q", "x", *args], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert done.returncode != 0 and words in done.stderr
    assert "Traceback" not in done.stderr and not fake_provider.requests


def test_openai_takes_reasoning_effort_and_refuses_a_thinking_budget(fake_provider, hermes_home,
                                                                      tmp_path):
    from tests.helpers import openai_env

    env = openai_env(hermes_home, fake_provider)
    done = hermes(["-q", "x", "--provider", "openai", "-m", "gpt-5.5", "--reasoning",
                   "effort=minimal"], env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert fake_provider.last.body["reasoning_effort"] == "minimal"
    refused = hermes(["-q", "x", "--provider", "openai", "-m", "gpt-5.5", "--reasoning", "4096"],
                     env, cwd=tmp_path)
    assert refused.returncode != 0 and "openai has no thinking setting" in refused.stderr
