"""ScriptedModel: an in-process model for the fast test tier (no socket, no SDK).

It implements the provider contract of agent/providers/base.py (`name`, `stream`,
`close`) in the spirit of mini-swe-agent's DeterministicModel and pydantic-ai's
FunctionModel: the test scripts what the model answers and reads back the neutral
`Request`s the agent would have sent. Wire format, cache rules (what a provider bills
and caches) and SDK behaviour stay with the fake HTTP server (tests/fakes/server.py).

    model = ScriptedModel(Reply(tool_calls=[ToolCall("todo", {})]), Reply(text="done"))
    agent = scripted_agent(model, home, cwd)       # tests/helpers.py
    model.requests[-1].messages                    # what the second call carried

Every request is mapped by the real Anthropic adapter (`bodies`) and checked with the
fake server's validation (`rejected`): a request the API would refuse fails with a 400.

Script items, consumed one per call (then `responder`, then "ok"):
- `Reply` (tests.fakes.script): text streamed in `chunks` pieces, tool calls, and
  signed thinking blocks (as the fake server makes them) when the request thinks.
- `Answer`: a Reply plus exact usage (cache read/write figures), stop reason,
  response id and the provider's miss reason.
- an exception instance (`TransientProviderError(...)`, `ProviderError(...)`): raised
  by the call; `Fail(exc, after_chunks=N)` streams N pieces first.
- `Hold`: streams a first piece, then blocks until released or the turn is cancelled
  (driven by events, never sleeps); on cancel it raises CancelledMidStream like the
  Anthropic adapter after `message_start`: what arrived, the prompt billed, output 1.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from agent.cancel import CancelToken
from agent.errors import PromptTooLongError, ProviderError
from agent.messages import Message, ProviderReply, Request, block_json, canonical_json
from agent.messages import ToolCall as WireCall
from agent.providers._errors import CancelledMidStream
from agent.providers.anthropic.adapter import map_request
from agent.providers.base import StreamDone, StreamItem, StreamText, StreamThinking
from agent.tokens import estimate_tokens, images_tokens
from agent.usage import Usage

from .anthropic_api import ApiError, validate
from .script import Reply, ToolCall, split_text
from .thinking import ThinkingError, reply_blocks
from .thinking import validate as validate_thinking

HOLD_LIMIT = 30.0  # a Hold never released fails the test instead of hanging it


@dataclass
class Answer:
    """A reply with exact accounting. `usage` None -> estimated, all uncached."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    stop_reason: str = ""
    response_id: str | None = None
    miss_reason: str | None = None
    chunks: int | None = None


@dataclass
class Fail:
    """Raise `error` after streaming `after_chunks` pieces of `text`."""

    error: Exception
    after_chunks: int = 0
    text: str = "partial answer that never completes"


class Hold:
    """A slow stream: yields `first`, sets `started`, then waits for `release()` (then
    finishes with `then`) or for the cancel token (then raises TurnCancelled)."""

    def __init__(self, first: str = "slow ", then: Reply | Answer | None = None) -> None:
        self.first = first
        self.then = then or Reply(text="released")
        self.started = threading.Event()
        self.finished = threading.Event()
        self._go = threading.Event()

    def release(self) -> None:
        self._go.set()


@dataclass
class Call:
    """One call the model received (the fields tests share with the fake's `Record`):
    `status` 200 when answered, the error's status when one was raised, 0 if cut off."""

    request: Request
    body: dict
    prompt_tokens: int
    status: int = 0
    reply: ProviderReply | None = None


Item = Reply | Answer | Fail | Hold | Exception
Responder = Callable[[Request], "Item | None"]


def prompt_tokens(request: Request) -> int:
    """Deterministic size of a request: tools, system and message text (~4 chars/token)."""
    text = "".join(t.canonical() for t in request.tools)
    text += "".join(b.text for b in request.system)
    text += "".join(m.wire_text + "".join(c.arguments for c in m.tool_calls)
                    for m in request.messages)
    return estimate_tokens(text) + sum(images_tokens(m.images) for m in request.messages)


class ScriptedModel:
    """An in-process `Provider`. Thread-safe: sub-agents may call it concurrently."""

    def __init__(self, *items: Item, name: str = "anthropic",
                 context_window: int | None = None) -> None:
        self.name = name
        self.context_window = context_window  # larger prompts raise PromptTooLongError
        self.responder: Responder | None = None
        self.calls: list[Call] = []
        self.rejected: list[str] = []  # why a request was refused (the fake server's rules)
        self.closed = 0
        self._script: deque[Item] = deque(items)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    # ---- scripting -----------------------------------------------------------------
    def script(self, *items: Item) -> None:
        """Append items to the script."""
        with self._lock:
            self._script.extend(items)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    @property
    def requests(self) -> list[Request]:
        """The neutral requests received, in order."""
        return [c.request for c in self.calls]

    @property
    def bodies(self) -> list[dict]:
        """Each request as the Anthropic adapter maps it (`client.messages.create` kwargs)."""
        return [c.body for c in self.calls]

    @property
    def last(self) -> Call:
        return self.calls[-1]

    def _next(self, request: Request) -> tuple[Call, Item]:
        body = map_request(request)
        call = Call(replace(request, messages=list(request.messages), system=list(request.system),
                            tools=list(request.tools), breakpoints=list(request.breakpoints)),
                    body, prompt_tokens(request))
        with self._lock:
            self.calls.append(call)
            try:  # what the API (and the fake server) refuses, this model refuses too
                validate(body)
                validate_thinking(body)
            except (ApiError, ThinkingError) as exc:
                message = getattr(exc, "message", str(exc))
                self.rejected.append(message)
                return call, ProviderError(f"Error code: 400 - {message}", status=400)
            if self._script:
                return call, self._script.popleft()
        item = self.responder(request) if self.responder else None
        return call, Reply(text="ok") if item is None else item

    # ---- the provider contract -----------------------------------------------------
    def stream(self, request: Request, cancel: CancelToken) -> Iterator[StreamItem]:
        cancel.check()
        call, item = self._next(request)
        call.status = 0  # until it completes or fails
        if self.context_window is not None and call.prompt_tokens > self.context_window:
            item = PromptTooLongError(f"prompt is too long: {call.prompt_tokens} tokens > "
                                      f"{self.context_window} maximum", status=400)
        if isinstance(item, Fail):
            for piece in split_text(item.text, max(item.after_chunks, 1))[:item.after_chunks]:
                yield StreamText(piece)
            item = item.error
        if isinstance(item, Exception):
            call.status = getattr(item, "status", None) or 500
            raise item
        streamed = ""
        if isinstance(item, Hold):
            yield from self._hold(item, cancel, lambda: self._cut(request, call, item.first))
            streamed, item = item.first, item.then
        thinking = reply_blocks(call.body, getattr(item, "thinking", None),
                                getattr(item, "redacted", False))  # when the request thinks
        for piece in split_text("".join(b.get("thinking") or "" for b in thinking), 2):
            yield StreamThinking(piece)
        sent = streamed
        for piece in split_text(item.text, item.chunks or 3):
            if cancel.cancelled:
                raise CancelledMidStream(self._cut(request, call, sent))
            sent += piece
            yield StreamText(piece)
        call.reply = self._reply(request, item, call.prompt_tokens, streamed,
                                 tuple(block_json(b) for b in thinking))
        call.status = 200
        yield StreamDone(call.reply)

    def _cut(self, request: Request, call: Call, sent: str) -> ProviderReply:
        """What a cut stream leaves: the text sent, the prompt's usage and output 1."""
        return ProviderReply(Message("assistant", sent), Usage(uncached=call.prompt_tokens,
                                                                output=1), model=request.model)

    def _hold(self, hold: Hold, cancel: CancelToken,
              cut: Callable[[], ProviderReply]) -> Iterator[StreamItem]:
        yield StreamText(hold.first)
        hold.started.set()
        remove = cancel.on_cancel(hold.release)
        try:
            if not hold._go.wait(HOLD_LIMIT):
                raise AssertionError(f"Hold was neither released nor cancelled in {HOLD_LIMIT}s")
        finally:
            remove()
            hold.finished.set()
        if cancel.cancelled:
            raise CancelledMidStream(cut())

    def _reply(self, request: Request, item: Reply | Answer, tokens: int,  # noqa: PLR0913
               streamed: str = "", reasoning: tuple[str, ...] = ()) -> ProviderReply:
        calls = tuple(WireCall(c.id or f"call_{next(self._ids)}", c.name, canonical_json(c.arguments))
                      for c in item.tool_calls)
        usage = getattr(item, "usage", None)
        if usage is None:
            size = len(streamed + item.text + "".join(reasoning)) + sum(len(c.arguments)
                                                                         for c in calls)
            output = max(1, math.ceil(size / 4))
            usage = Usage(uncached=tokens, output=output)
        stop = getattr(item, "stop_reason", "") or ("tool_use" if calls else "end_turn")
        return ProviderReply(
            message=Message("assistant", streamed + item.text, tool_calls=calls,
                            reasoning=reasoning), usage=usage,
            stop_reason=stop, response_id=getattr(item, "response_id", None),
            miss_reason=getattr(item, "miss_reason", None), model=request.model)

    def close(self) -> None:
        self.closed += 1
