"""Fixtures for tool tests: a temporary HERMES_HOME and cwd, and a dispatch helper."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from agent.messages import ToolCall, canonical_json
from agent.tools.registry import ToolContext, ToolRegistry, ToolResult, discover


@pytest.fixture(scope="session")
def registry() -> ToolRegistry:
    return ToolRegistry(discover())


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    home, cwd = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    cwd.mkdir()
    return ToolContext(session_id="s-test", home=home, cwd=cwd)


@pytest.fixture
def call(registry: ToolRegistry, ctx: ToolContext):
    """call(tool, **args) -> ToolResult, dispatched exactly as the agent loop does."""

    def _call(_tool: str, _ctx: ToolContext | None = None, **args) -> ToolResult:
        tool_call = ToolCall(f"call-{uuid.uuid4().hex[:8]}", _tool, canonical_json(args))
        return registry.dispatch(tool_call, _ctx or ctx)

    return _call
