"""Fake LLM provider server for tests and benchmarks.

    from tests.fakes import FakeProvider, Reply, ToolCall, Error, Drop
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .script import Drop, Error, FakeClock, Record, Reply, ToolCall

if TYPE_CHECKING:
    from .server import FakeProvider

__all__ = ["Drop", "Error", "FakeClock", "FakeProvider", "Record", "Reply", "ToolCall"]


def __getattr__(name: str) -> Any:
    # Imported lazily so `python -m tests.fakes.server` does not import the module twice.
    if name == "FakeProvider":
        from .server import FakeProvider

        return FakeProvider
    raise AttributeError(name)
