"""Pytest fixtures for the fake provider.

Enable with `pytest_plugins = ["tests.fakes.fixtures"]` in the root conftest.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .server import FakeProvider


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    """A started FakeProvider with small cache minimums (64 tokens) for small prompts."""
    with FakeProvider(min_cache_tokens=64, openai_min_cache_tokens=128,
                      openai_cache_step=64) as fake:
        yield fake
