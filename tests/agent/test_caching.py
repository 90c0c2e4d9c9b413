"""Breakpoint placement (pure) and its rendering on the Anthropic wire."""

from __future__ import annotations

import pytest

from agent.messages import Breakpoint, Message, Request, SystemBlock, ToolSchema
from agent.modelcall.caching import place_breakpoints
from agent.providers.anthropic.adapter import map_request


def test_first_request_tools_system_and_end():
    points = place_breakpoints(has_tools=True, stable_system_index=0, message_count=1,
                               previous_last_index=None)
    assert points == [Breakpoint("tools", -1, "5m"), Breakpoint("system", 0, "5m"),
                      Breakpoint("message", 0, "5m")]


def test_previous_write_position_is_marked():
    points = place_breakpoints(has_tools=True, stable_system_index=0, message_count=30,
                               previous_last_index=4)
    assert Breakpoint("message", 4, "5m") in points
    assert points[-1] == Breakpoint("message", 29, "5m")
    assert len(points) == 4


@pytest.mark.parametrize("count", range(0, 60, 7))
@pytest.mark.parametrize("previous", [None, 0, 3, 58, 100])
def test_never_more_than_four(count, previous):
    points = place_breakpoints(has_tools=True, stable_system_index=0, message_count=count,
                               previous_last_index=previous)
    assert len(points) <= 4


def test_ttl_ordering_longer_first():
    points = place_breakpoints(has_tools=True, stable_system_index=0, message_count=5,
                               previous_last_index=2, ttl="5m", prefix_ttl="1h")
    assert [p.ttl for p in points] == ["1h", "1h", "5m", "5m"]
    # a 1h message TTL forces the prefix up to 1h too (never short before long)
    points = place_breakpoints(has_tools=True, stable_system_index=0, message_count=5,
                               previous_last_index=2, ttl="1h", prefix_ttl="5m")
    assert {p.ttl for p in points} == {"1h"}


def _request(points):
    return Request(
        model="claude-sonnet-5",
        system=[SystemBlock("stable"), SystemBlock("ephemeral", "ephemeral")],
        messages=[Message("user", f"m{i}") if i % 2 == 0 else Message("assistant", f"a{i}") for i in range(9)],
        tools=[ToolSchema("a", "A", {"type": "object"}), ToolSchema("b", "B", {"type": "object"})],
        breakpoints=points,
    )


def test_wire_markers_land_on_the_named_blocks():
    points = place_breakpoints(has_tools=True, stable_system_index=0, message_count=9,
                               previous_last_index=4, prefix_ttl="1h")
    wire = map_request(_request(points))
    assert wire["tools"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert "cache_control" not in wire["tools"][0]
    assert wire["system"][0]["cache_control"]["ttl"] == "1h"
    assert "cache_control" not in wire["system"][1]  # ephemeral layer is not a breakpoint
    assert wire["messages"][4]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert wire["messages"][8]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    marked = sum("cache_control" in block for m in wire["messages"] for block in m["content"])
    assert marked == 2


def test_a_request_with_five_markers_cannot_be_built():
    five = [Breakpoint("tools"), Breakpoint("system", 0), Breakpoint("message", 1),
            Breakpoint("message", 3), Breakpoint("message", 5)]
    with pytest.raises(ValueError):
        map_request(_request(five))


def test_tool_schemas_go_out_with_sorted_keys(fake_provider, hermes_home, tmp_path):
    import json

    from tests.helpers import make_agent, run

    agent = make_agent(fake_provider, hermes_home, tmp_path)
    run(agent, "hi")
    raw = fake_provider.requests[0].raw.decode()
    tools = json.loads(raw)["tools"]

    def sorted_everywhere(value):
        if isinstance(value, dict):
            keys = [k for k in value if k != "cache_control"]
            return keys == sorted(keys) and all(sorted_everywhere(v) for v in value.values())
        if isinstance(value, list):
            return all(sorted_everywhere(v) for v in value)
        return True

    assert all(sorted_everywhere(tool["input_schema"]) for tool in tools)
    assert [t["name"] for t in tools] == sorted(t["name"] for t in tools)
