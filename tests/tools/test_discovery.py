"""discover(): the built-in tools, their schemas byte-stable, and the toolset guidance."""

from __future__ import annotations

import json

from agent.messages import canonical_json
from agent.tools.registry import ToolRegistry, discover
from agent.tools.toolsets import DEFAULT_TOOLSETS, TOOLSET_GUIDANCE, guidance

EXPECTED = {
    "read_file": ("file", True),
    "write_file": ("file", False),
    "patch": ("file", False),
    "search_files": ("file", True),
    "terminal": ("terminal", False),
    "memory": ("memory", False),
    "skills_list": ("skills", True),
    "skill_view": ("skills", True),
    "session_search": ("search", True),
    "todo": ("todo", False),
    "cronjob": ("cron", False),
}


def test_discover_finds_every_builtin_tool_with_its_toolset_and_read_only_flag():
    tools = {tool.name: tool for tool in discover()}
    for name, (toolset, read_only) in EXPECTED.items():
        assert tools[name].toolset == toolset
        assert tools[name].read_only is read_only


def test_schemas_are_sorted_plain_json_and_byte_stable():
    first = [s.canonical() for s in ToolRegistry(discover()).schemas()]
    second = [s.canonical() for s in ToolRegistry(reversed(discover())).schemas()]
    assert first == second
    names = [json.loads(text)["name"] for text in first]
    assert names == sorted(names)
    for text in first:
        value = json.loads(text)  # plain JSON: survives a round trip unchanged
        assert canonical_json(value) == text
        assert value["parameters"]["type"] == "object"
        assert set(value["parameters"].get("required", [])) <= set(value["parameters"]["properties"])
        assert value["description"].strip()


def test_toolset_guidance_is_for_default_toolsets_and_stays_short():
    """Guidance only where a tool's description cannot say it (agent/tools/toolsets.py)."""
    assert set(TOOLSET_GUIDANCE) <= set(DEFAULT_TOOLSETS)
    for text in TOOLSET_GUIDANCE.values():
        assert len(text) < 400
        assert "\n" not in text


def test_guidance_is_ordered_and_filtered():
    assert guidance(["skills", "file"]) == guidance(["file", "skills"])
    text = guidance(["file", "todo", "skills"])
    assert text == TOOLSET_GUIDANCE["file"] + "\n\n" + TOOLSET_GUIDANCE["skills"]
    assert guidance([]) == ""


def test_unknown_tool_and_bad_arguments_are_error_results(call):
    assert not call("nope").ok
    result = call("read_file")
    assert not result.ok and "path" in result.content
