"""A temporary workspace and a dispatch helper (calls go through the registry as the loop does)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from agent.messages import ToolCall, canonical_json
from agent.tools.registry import ToolContext, ToolRegistry, ToolResult, discover


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    return ToolContext(session_id="s-perm", home=tmp_path / "home", cwd=tmp_path / "work")


@pytest.fixture
def call(ctx: ToolContext):
    registry = ToolRegistry(discover())

    def _call(_tool: str, _ctx: ToolContext | None = None, **args) -> ToolResult:
        return registry.dispatch(ToolCall(f"c-{uuid.uuid4().hex[:8]}", _tool, canonical_json(args)), _ctx or ctx)

    return _call
