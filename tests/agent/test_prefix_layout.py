"""Stored block layout (agent.prompts.prefix): a resumed session cuts the same blocks from the
same stored text; legacy rows (no layout) are one block; breakpoint budget (fast tier)."""

from __future__ import annotations

from pathlib import Path

from agent.modelcall.caching import MAX_BREAKPOINTS, place_breakpoints
from agent.prompts.prefix import cache_key, decode, encode, layout_of, relayout, split
from agent.prompts.prompt import EnvFacts, PromptInputs, build_stable
from agent.sessions.session import with_model

ENV = EnvFacts("2026-11-29 18:40 UTC", "s-1", "claude-sonnet-5", "anthropic", "/w", "Linux")


def built():
    return build_stable(PromptInputs(env=ENV, memory=("a note",), skills_index=("x: y",)))


def test_layout_round_trips_to_the_same_blocks():
    stable = built()
    layout = decode(encode(layout_of(stable.blocks)))
    assert split(stable.text, layout) == stable.blocks


def test_legacy_row_and_bad_layouts_are_one_block():
    text = built().text
    assert split(text, decode(None)) == (("session", text),)
    assert split(text, decode("not json")) == (("session", text),)
    assert split(text, (("installation", 5), ("session", 3))) == (("session", text),)
    assert decode('[["galaxy", 3]]') == ()


def test_model_switch_keeps_the_shared_blocks_byte_identical():
    stable = built()
    layout = layout_of(stable.blocks)
    new = with_model(stable.text, "claude-opus-5", "anthropic")
    blocks = split(new, relayout(layout, stable.text, new))
    assert blocks[:-1] == stable.blocks[:-1]
    assert "Model: claude-opus-5 (anthropic)" in blocks[-1][1]


def test_cache_key_is_per_installation_provider_model_not_session(tmp_path: Path):
    key = cache_key(tmp_path, "openai", "gpt-5")
    assert key == cache_key(tmp_path, "openai", "gpt-5")
    assert key != cache_key(tmp_path, "openai", "gpt-5-mini")
    assert key != cache_key(tmp_path / "other", "openai", "gpt-5")


def test_never_more_than_four_breakpoints_in_any_case():
    for shared in ((), (0,), (0, 1)):
        for previous in (None, 0, 3, 8):
            for tools in (True, False):
                points = place_breakpoints(has_tools=tools, stable_system_index=len(shared),
                                           shared_system_indexes=shared, message_count=10,
                                           previous_last_index=previous)
                assert len(points) <= MAX_BREAKPOINTS
                targets = [(p.target, p.index) for p in points]
                assert ("message", 9) in targets and ("system", len(shared)) in targets
                if previous is not None and previous < 9:
                    assert ("message", previous) in targets


def test_first_request_writes_the_shared_ends_later_requests_as_before():
    first = place_breakpoints(has_tools=True, stable_system_index=2, shared_system_indexes=(0, 1),
                              message_count=1, previous_last_index=None)
    assert [(p.target, p.index) for p in first] == [("system", 0), ("system", 1), ("system", 2),
                                                     ("message", 0)]
    later = place_breakpoints(has_tools=True, stable_system_index=2, shared_system_indexes=(0, 1),
                              message_count=5, previous_last_index=2)
    assert [(p.target, p.index) for p in later] == [("tools", -1), ("system", 2), ("message", 2),
                                                     ("message", 4)]
    legacy = place_breakpoints(has_tools=True, stable_system_index=0, message_count=1,
                               previous_last_index=None)
    assert [(p.target, p.index) for p in legacy] == [("tools", -1), ("system", 0), ("message", 0)]


def test_shared_read_counts_first_calls_only():
    from frontend.usage_report import shared_read

    rows = [dict(call_index=1, cache_read=300, cache_known=1),
            dict(call_index=2, cache_read=900, cache_known=1),
            dict(call_index=0, cache_read=250, cache_known=1, miss_detail="sub-agent first call: ok"),
            dict(call_index=0, cache_read=400, cache_known=1, miss_detail="sub-agent: ok")]
    assert shared_read(rows) == 550
    assert shared_read([dict(call_index=1, cache_read=None, cache_known=0)]) is None
