"""memory: the tool over the real Notes in a temporary HERMES_HOME."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memory.notes import Notes


@pytest.fixture
def notes(ctx) -> Notes:
    ctx.services = replace(ctx.services, notes=Notes(ctx.home))
    return ctx.services.notes


def test_add_replace_remove(call, notes):
    added = call("memory", action="add", target="user", content="Prefers tabs over spaces.")
    assert added.ok and "next session" in added.content
    assert notes.entries("user") == ["Prefers tabs over spaces."]
    replaced = call("memory", action="replace", target="user", old_text="tabs", content="Prefers 4 spaces.")
    assert replaced.ok, replaced.content
    assert notes.entries("user") == ["Prefers 4 spaces."]
    removed = call("memory", action="remove", target="user", old_text="4 spaces")
    assert removed.ok and notes.entries("user") == []


def test_notes_errors_become_tool_errors(call, notes):
    missing = call("memory", action="remove", target="memory", old_text="nothing like this")
    assert not missing.ok and missing.content.startswith("Error: No entry")


def test_argument_errors(call, notes):
    assert "action must be" in call("memory", action="delete", target="memory").content
    assert "target must be" in call("memory", action="add", target="notes", content="x").content
    assert "needs 'content'" in call("memory", action="add", target="memory").content
    assert "needs 'old_text'" in call("memory", action="remove", target="memory").content


def test_without_notes_service(call):
    result = call("memory", action="add", target="memory", content="x")
    assert not result.ok and "not available" in result.content


def test_description_says_writes_reach_the_prompt_next_session(registry):
    assert "next session" in registry.get("memory").description
