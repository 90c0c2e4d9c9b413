"""Tests of hermes_cli.render.usage: rendered to a string console."""

from __future__ import annotations

import io

from rich.console import Console

from frontend.usage_report import report_from_rows
from hermes_cli.render.usage import render_report, sparkline, toolbar_text

MODEL = "claude-sonnet-5"


def row(turn: int = 1, call_index: int = 1, **kw) -> dict:
    base = {
        "turn": turn, "call_index": call_index, "model": MODEL, "provider": "anthropic",
        "uncached": 10, "write_5m": 0, "write_1h": 0, "cache_read": 0, "output": 5,
        "cost_usd": 0.001, "cache_known": True, "miss_cause": None, "miss_detail": None,
        "missed_tokens": None, "response_id": None,
    }
    base.update(kw)
    return base


def rendered(report) -> str:
    console = Console(file=io.StringIO(), width=100, color_system=None)
    render_report(console, report)
    return console.file.getvalue()


def test_render_shows_the_numbers() -> None:
    rows = [
        # true Sonnet 5 costs: $2 in, 2.50 5m write, 4 1h write, 0.20 read, $10 out
        # 1200 x 2 + 3400 x 2.5 + 5 x 10 = 10,950 -> $0.01095
        row(1, 1, uncached=1200, write_5m=3400, cost_usd=0.01095, miss_cause="cold"),
        # 300 x 2 + 700 x 4 + 3400 x 0.2 + 250 x 10 = 6,580 -> $0.00658
        row(2, 2, uncached=300, write_1h=700, cache_read=3400, output=250, cost_usd=0.00658,
            miss_cause=None),
        # 4400 x 2 + 99 x 10 = 9,790 -> $0.00979
        row(3, 3, uncached=4400, cache_read=0, output=99, cost_usd=0.00979,
            miss_cause="expired", miss_detail="idle 9.0 min > 5 min TTL", missed_tokens=4400),
    ]
    text = rendered(report_from_rows(rows, model=MODEL, context_window=200_000))
    assert "this turn" in text and "session" in text
    assert "5,900" in text  # session uncached
    assert "3,400" in text and "700" in text and "354" in text  # writes, read, output
    assert "$0.0273" in text and "$0.009790" in text  # session $0.02732, this turn
    # no caching: 13,400 prompt x 2 + 354 output x 10 = 30,340 -> $0.03034; saved $0.00302
    assert "caching saved $0.003020 (10.0%)" in text  # 0.00302 / 0.03034
    assert "prices: genai-prices 0.2.3 (data of 2026-11)" in text
    assert "context 4,400 / 200,000 (2.2%)" in text
    assert "expired" in text and "4,400" in text and "cache TTL" in text
    assert "cold" not in text.split("cache misses")[-1]
    assert "hit rate by turn: ▁▆▁" in text  # 0%, 3400/4400 = 77%, 0%
    assert "unknown" not in text.replace("? unknown", "")


def test_render_unknowns_print_unknown_never_zero() -> None:
    rows = [row(1, 1, uncached=500, cache_read=None, cache_known=False, cost_usd=None,
                model="local-llama")]
    text = rendered(report_from_rows(rows, model="local-llama"))
    labels = ("cache write 5m", "cache write 1h", "cache read", "hit rate ", "cost")
    lines = [line for line in text.splitlines() if line.startswith(labels)]
    assert len(lines) == len(labels) + 1  # + the sparkline's "hit rate by turn"
    assert all("unknown" in line for line in lines)
    assert "0.0%" not in text
    assert "unknown (0/1 priced)" in text
    assert "savings unknown (price unknown for local-llama)" in text
    assert "prices: unknown for local-llama" in text
    assert "context 500 / unknown (unknown)" in text
    assert "hit rate by turn: ?" in text
    assert "no cache misses" in text


def test_render_savings_unknown_without_cache_data() -> None:
    rows = [row(cache_read=None, cache_known=False)]
    assert "savings unknown (the provider reported no cache data)" in rendered(
        report_from_rows(rows, model=MODEL))


def test_render_empty_session() -> None:
    text = rendered(report_from_rows([], model=MODEL))
    assert "no calls yet" in text and "no cache misses" in text


def test_render_negative_savings() -> None:
    # 1M tokens written for 1h on Sonnet 5: $4 (2x its $2 input) vs $2 uncached
    rows = [row(uncached=0, write_1h=1_000_000, output=0, cost_usd=4.0)]
    text = rendered(report_from_rows(rows, model=MODEL))
    assert "caching cost $2.0000 more than no caching (+100.0%)" in text


def test_sparkline_levels() -> None:
    assert sparkline([0.0, 0.5, 1.0, None]) == "▁▅█?"
    assert sparkline([]) == ""


def test_toolbar_text() -> None:
    rows = [row(uncached=100, cache_read=900, cost_usd=0.0123)]
    text = toolbar_text(report_from_rows(rows, model=MODEL, context_window=10_000))
    assert text == "claude-sonnet-5 | ctx 1k/10k (10.0%) | hit 90.0% | cost $0.0123"
    assert "\n" not in text
    unknown = toolbar_text(report_from_rows([row(cache_read=None, cache_known=False,
                                                 cost_usd=None)], model="x-model"))
    assert unknown == "x-model | ctx unknown | hit unknown | cost unknown"


def test_toolbar_shows_no_cost_before_the_first_call() -> None:
    assert toolbar_text(report_from_rows([], model="some-unpriced-model")) == (
        "some-unpriced-model | ctx - | hit - | cost -")


def test_a_miss_explanation_does_not_repeat_itself() -> None:
    rows = [row(), row(turn=2, miss_cause="system_changed", miss_detail="the system prompt changed",
                     missed_tokens=10)]
    text = rendered(report_from_rows(rows, model=MODEL))
    assert text.count("the system prompt changed") == 1


def test_cache_writes_openai_never_reports_are_not_rows_of_zeros() -> None:
    openai_rows = [row(model="gpt-5.2", provider="openai", cache_read=0)]
    text = rendered(report_from_rows(openai_rows, model="gpt-5.2"))
    assert "cache write" not in text and "cache read" in text
    assert "cache write 5m" in rendered(report_from_rows([row()], model=MODEL))
