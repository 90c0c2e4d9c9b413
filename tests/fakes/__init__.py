"""Fake LLM provider server for tests and benchmarks.

    from tests.fakes import FakeProvider, Reply, ToolCall, Error, Drop, Malformed
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .script import Drop, Error, FakeClock, Malformed, Record, Reply, ToolCall

if TYPE_CHECKING:
    from .server import FakeProvider

__all__ = ["Drop", "Error", "FakeClock", "Malformed", "FakeProvider", "Record", "Reply", "ToolCall"]


def __getattr__(name: str) -> Any:
    # Imported lazily so `python -m tests.fakes.server` does not import the module twice.
    if name == "FakeProvider":
        from .server import FakeProvider

        return FakeProvider
    raise AttributeError(name)
