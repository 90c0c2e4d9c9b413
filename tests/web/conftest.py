"""Fixtures for the web tools: a tool context, a dispatch helper (as the loop calls), and
`site`: the local web site of tests/fakes/web_site.py."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.messages import ToolCall, canonical_json
from agent.tools.registry import ToolContext, ToolRegistry, ToolResult, discover
from tests.fakes.web_site import Site, serve


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    return ToolContext(session_id="s-web", home=tmp_path / "home", cwd=tmp_path / "work")


@pytest.fixture
def call():
    registry = ToolRegistry(discover())

    def _call(_tool: str, _ctx: ToolContext, **args) -> ToolResult:
        return registry.dispatch(ToolCall(f"c-{uuid.uuid4().hex[:8]}", _tool, canonical_json(args)), _ctx)

    return _call


@pytest.fixture
def site() -> Iterator[Site]:
    with serve() as running:
        yield running
