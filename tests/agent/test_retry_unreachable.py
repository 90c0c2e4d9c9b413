"""The retry loop's view of a provider that cannot be reached (a wrong base URL)."""

from __future__ import annotations

import pytest

from agent.cancel import CancelToken
from agent.errors import UnreachableProviderError
from agent.modelcall.calls import stream_with_retries
from agent.retry import RetryPolicy


def test_a_refused_connection_after_the_url_worked_is_retried() -> None:
    """Before any reply a provider that cannot be reached is raised at once; once a reply
    came through the caller (connected), the same refusal is retried like an outage."""
    class Refusing:
        calls = 0

        def stream(self, request, cancel):
            self.calls += 1
            raise UnreachableProviderError("cannot connect")
            yield  # pragma: no cover - a generator

    policy = RetryPolicy(attempts=3, base=0.0, cap=0.0)
    for connected, tries in ((False, 1), (True, 3)):
        provider = Refusing()
        with pytest.raises(UnreachableProviderError):
            list(stream_with_retries(provider, None, policy, CancelToken(), connected=connected))
        assert provider.calls == tries
