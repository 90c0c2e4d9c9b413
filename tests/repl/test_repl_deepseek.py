"""In the REPL itself: a session on deepseek-v4-flash against the
local fake DeepSeek API reads >= 0.9 of what could be cached from turn 2, and the cost
/usage shows equals the fake's bill at genai-prices (wire tier: the REPL in a pty, the
real openai SDK against the fake)."""

from __future__ import annotations

import re

import pytest

from hermes_cli.render.usage import fmt_money
from tests.fakes import Reply
from tests.fakes import ToolCall as FakeCall

pytestmark = pytest.mark.wire

MODEL = "deepseek-v4-flash"


def test_a_deepseek_repl_session_reads_from_turn_two_and_shows_the_bill(spawn_repl, fake_provider,
                                                                       hermes_home):
    (hermes_home / ".env").write_text(f"DEEPSEEK_API_KEY=test-deepseek-key\n"
                                      f"DEEPSEEK_BASE_URL={fake_provider.deepseek_base_url}\n")
    fake_provider.script(Reply(tool_calls=[FakeCall("todo", {"todos": [
                             {"content": "look", "status": "in_progress"}]})]),
                         Reply(text="answer one"), Reply(text="answer two"),
                         Reply(text="answer three"))
    repl = spawn_repl("-m", MODEL)
    for n, word in ((1, "one"), (2, "two"), (3, "three")):
        repl.send(f"question {n}")
        repl.expect(f"answer {word}")
        repl.prompt()
    sent = fake_provider.requests_for("deepseek")
    assert len(sent) == 4 and all(r.status == 200 for r in sent), [r.error for r in sent]
    assert all(r.headers.get("authorization") == "Bearer test-deepseek-key" for r in sent)
    read = sum(r.cache_read for r in sent[1:])
    could = sum(prev.prompt_tokens for prev in sent[:-1])
    assert read >= 0.9 * could, (read, could)

    repl.send("/usage")
    shown = repl.expect("hit rate by turn")
    bill = fake_provider.deepseek.bill(fake_provider.requests)
    costs = re.findall(r"\$[\d.,]+", shown)
    assert fmt_money(bill) in costs, (fmt_money(bill), bill, shown)  # the session's cost
