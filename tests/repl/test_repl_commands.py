"""Slash commands in the REPL: completion, /model, /usage, /help, errors."""

from __future__ import annotations

import re

from tests.fakes import Reply


def test_tab_completes_a_command_name(spawn_repl):
    repl = spawn_repl()
    repl.child.send("/mo\t")
    repl.child.send("\r")
    out = repl.expect("known models:")
    assert "current model: claude-sonnet-5-5 (anthropic)" in out


def test_tab_completes_a_personality_argument(spawn_repl):
    repl = spawn_repl()
    repl.child.send("/personality ske\t")
    repl.child.send("\r")
    repl.expect("Personality -> skeptic")
    out = repl.prompt()
    assert out.count("the next call re-sends ~") == 1  # said once, by the agent's notice


def test_model_switch_estimates_first_and_costs_exactly_one_miss(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="answer one"), Reply(text="answer two"),
                         Reply(text="answer three"))
    repl = spawn_repl()
    repl.send("first")
    repl.expect("answer one")
    repl.prompt()
    repl.send("/model other-model")
    repl.expect("Model claude-sonnet-5-5 -> other-model")
    estimate = " ".join(repl.prompt().split())  # the notice wraps at the terminal width
    assert re.search(r"the next call re-sends ~[\d,]+ tokens uncached, (est\. \$[\d.]+|cost unknown)",
                     estimate)
    repl.send("second")
    repl.expect("answer two")
    repl.prompt()
    repl.send("third")
    repl.expect("answer three")
    repl.prompt()
    first, switched, after = fake_provider.requests
    assert first.model == "claude-sonnet-5-5"
    assert switched.model == after.model == "other-model"
    assert switched.cache_read == 0 and switched.miss_reason == "model_changed"
    assert after.cache_read > 0
    assert [r.miss_reason for r in fake_provider.requests if r.miss_reason] == ["model_changed"]
    repl.send("/usage")  # the deliberate miss is listed with its cause
    listed = repl.expect("hit rate by turn")
    assert "model_changed" in listed and "no cache misses" not in listed, listed


def _row(output: str, label: str) -> int:
    match = re.search(rf"^{label}\s+[│|]\s+[\d,]+\s+[│|]\s+([\d,]+)\s*$", output, re.MULTILINE)
    assert match, f"no {label!r} row in:\n{output}"
    return int(match.group(1).replace(",", ""))


def test_usage_shows_the_exact_sums_of_the_provider_reports(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="alpha answer"), Reply(text="beta answer, a longer one"))
    repl = spawn_repl()
    repl.send("alpha")
    repl.expect("alpha answer")
    repl.prompt()
    repl.send("beta")
    repl.expect("beta answer, a longer one")
    repl.prompt()
    repl.send("/usage")
    output = repl.expect("hit rate by turn")
    records = fake_provider.requests
    assert len(records) == 2
    assert _row(output, "calls") == 2
    assert _row(output, "uncached") == sum(r.usage["input_tokens"] for r in records)
    assert _row(output, "cache write 5m") == sum(r.usage["cache_creation_input_tokens"]
                                                  for r in records)
    assert _row(output, "cache read") == sum(r.usage["cache_read_input_tokens"] for r in records)
    assert _row(output, "output") == sum(r.usage["output_tokens"] for r in records)
    assert sum(r.cache_read for r in records) > 0
    assert "prices: genai-prices 0.2.3 (data of 2026-11)" in output


def test_usage_of_an_unknown_model_says_unknown(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="mystery answer"))
    repl = spawn_repl("--model", "mystery-model-9")
    repl.send("hi")
    repl.expect("mystery answer")
    repl.prompt()
    repl.send("/usage")
    output = repl.expect("hit rate by turn")
    assert re.search(r"^cost\s+[│|]\s+unknown", output, re.MULTILINE), output
    assert "savings unknown (price unknown for mystery-model-9)" in output
    assert "prices: unknown for mystery-model-9" in output
    assert "$" not in output


def test_unknown_command_suggests_the_closest(spawn_repl):
    repl = spawn_repl()
    repl.send("/modle")
    repl.expect("unknown command /modle - did you mean /model?")
    repl.prompt()
    repl.send("/usage now")
    repl.expect("usage: /usage")
    repl.prompt()
    repl.send("/compress --bogus")
    repl.expect("usage: /compress [--preview] [focus]")
    repl.prompt()
    repl.send("/help model")
    out = repl.expect("cache: the cache is per model")
    assert "/model [name]" in out


def test_help_lists_every_command_of_the_table(spawn_repl):
    from frontend.command_table import COMMANDS

    repl = spawn_repl()
    repl.send("/help")
    out = repl.expect("Ctrl-D quits")
    flat = " ".join(out.split())  # aliases may wrap
    for command in COMMANDS:
        assert f"/{command.name}" in out
        for alias in command.aliases:
            assert f"/{alias}" in flat, alias


def test_context_and_config_say_what_fills_the_window_and_where_settings_came_from(
        spawn_repl, fake_provider):
    fake_provider.script(Reply(text="an answer"))
    repl = spawn_repl("--yolo")
    repl.send("a question")
    repl.expect("an answer")
    repl.prompt()
    repl.send("/context")
    out = repl.expect("what the provider counted")
    assert re.search(r"conversation\s+2 messages", out), out
    assert re.search(r"context window\s+[\d,]+ of 1,000,000", out), out
    repl.prompt()
    repl.send("/config")
    out = " ".join(repl.expect("/permissions").split())
    assert "command line --yolo" in out, out
    assert "set (hidden)" in out and "test-key" not in out, out
    assert "environment ANTHROPIC_API_KEY" in out, out


def test_session_commands(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="kept answer"), Reply(text="retried answer"))
    repl = spawn_repl()
    repl.send("remember this")
    repl.expect("kept answer")
    repl.prompt()
    repl.send("/title my test session")
    repl.expect("title set: my test session")
    repl.prompt()
    repl.send("/retry")
    repl.expect("Dropped the last exchange")
    repl.expect("retried answer")
    repl.prompt()
    roles = [m["role"] for m in fake_provider.last.body["messages"]]
    assert roles == ["user"]
    repl.send("/sessions")
    out = repl.expect("resume one with /resume")
    assert "my test session" in out
    repl.prompt()
    repl.send("/undo")
    repl.expect("Dropped the last exchange")
    repl.prompt()
    repl.send("/undo")
    repl.expect("nothing to undo")
