"""What /compress says and shows afterwards, on the scripted
model: no cache promise below the model's minimum; the context figure is the new
conversation's, not the summary call's."""

from __future__ import annotations

from agent.events import Notice, UsageEvent
from agent.providers.models import min_cache_tokens
from frontend.commands import session_report
from hermes_cli.render.usage import toolbar_text


def _compressed(s) -> tuple[list, str]:
    for _ in range(6):
        s.tool_turn()
    events = list(s.agent.compress())
    return events, [e for e in events if isinstance(e, Notice)][-1].text


def test_below_the_cache_minimum_compress_says_nothing_will_be_cached(session):
    s = session(model="claude-haiku-4-5")  # minimum 4,096 tokens
    assert min_cache_tokens(s.agent.model) == 4096
    for _ in range(6):
        s.tool_turn()
    (shown,) = [e.text for e in s.agent.compress(preview=True) if isinstance(e, Notice)]
    assert "will not be cached" in shown and "rewrites the cache" not in shown
    assert "minimum cacheable size (4,096)" in shown
    final = [e for e in s.agent.compress() if isinstance(e, Notice)][-1].text
    assert "will not be cached" in final and "rewrites the cache" not in final


def test_above_the_minimum_compress_still_prices_the_rewrite(session):
    s = session()
    _, final = _compressed(s)
    assert "rewrites the cache" in final and "will not be cached" not in final


def test_after_compress_the_context_figure_is_the_new_conversation(session):
    s = session()
    events, final = _compressed(s)
    (summary,) = [e for e in events if isinstance(e, UsageEvent)]
    estimate = s.agent.session.calls.context_tokens()
    assert estimate and f"~{estimate:,} tokens" in final  # the notice's "after" figure
    assert estimate != summary.usage.prompt_tokens
    report = session_report(s.agent)
    assert report.context.used == estimate
    window = report.context.window
    assert f"/{window // 1000}k ({estimate / window * 100:.1f}%)" in toolbar_text(report)
    s.tool_turn()  # the next call measures the real size
    assert session_report(s.agent).context.used == s.last.prompt_tokens
