"""OpenAI Responses API adapter (OpenAI's and Azure's hosts, or `openai: {api:
responses}`): the official `openai` SDK, streaming, no SDK retries. The mapping is pure
and lives in responses_map.py beside it."""

from __future__ import annotations

from collections.abc import Iterator

from agent.cancel import CancelToken
from agent.messages import Request
from agent.providers._errors import stream_reply
from agent.providers.base import StreamItem
from agent.providers.openai import SPEC, cache_controls, is_reasoning_model
from agent.providers.openai.adapter import OpenAIProvider
from agent.providers.openai.responses_map import StreamAccumulator, map_request, map_response


class OpenAIResponsesProvider(OpenAIProvider):
    """`responses.create(stream=True)` with the whole input every time."""

    name = "openai"

    def stream(self, request: Request, cancel: CancelToken) -> Iterator[StreamItem]:
        """Stream one reply: StreamText/StreamThinking deltas, then StreamDone."""
        import openai

        # GPT-5.6's cache controls: OpenAI itself only (agent/providers/openai/cache.py)
        controls = self.settings.provider.lower() in SPEC.names and cache_controls(request.model)
        kwargs = map_request(request, store=self.settings.store, cache_controls=controls,
                             reasoning_model=is_reasoning_model(request.model))
        yield from stream_reply(lambda: self._sdk_client().responses.create(**kwargs), cancel,
                                StreamAccumulator(), openai, self._context(request.model),
                                map_response)
