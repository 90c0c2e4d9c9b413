"""Sub-agents share their parent's cached prefix.

A child sends the parent's exact tools bytes and stable system blocks, so its first
request reads what the parent (or any session of this installation) already wrote; its
goal and sub-agent instructions go in its ephemeral layer, after the stable layer. The
tools it may not use - delegate_task (depth 1), memory (the parent's), anything outside
the toolsets the parent allowed - stay in the list (removing one would change the tools
bytes, the very first thing in the prefix) and are refused when called.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from agent.cancel import CancelToken
from agent.messages import Request, ToolCall
from agent.providers.base import Provider, StreamItem
from agent.tools.registry import ToolContext, ToolRegistry, ToolResult

CHILD_REFUSED = ("delegate_task", "memory")  # depth 1; memory belongs to the parent


class RefusingRegistry(ToolRegistry):
    """The parent's tools, byte for byte, with some refused at dispatch."""

    def __init__(self, base: ToolRegistry, refused: dict[str, str]) -> None:
        super().__init__(tool for name in base.names() if (tool := base.get(name)) is not None)
        self.refused = dict(refused)

    def dispatch(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        reason = self.refused.get(call.name)
        if reason is not None:
            return ToolResult(call, f"Error: {call.name} is not available to this sub-agent "
                                    f"({reason}); do the task with your other tools.", False, 0.0)
        return super().dispatch(call, ctx)


def child_registry(parent: ToolRegistry, toolsets: Iterable[str]) -> RefusingRegistry:
    """The parent's registry with the child's refusals (see module docstring)."""
    allowed = set(toolsets)
    refused = {"delegate_task": "sub-agents cannot delegate further",
               "memory": "memory belongs to the parent agent"}
    for name in parent.names():
        tool = parent.get(name)
        if name not in refused and tool is not None and tool.toolset not in allowed:
            refused[name] = f"the parent restricted this sub-agent to {', '.join(sorted(allowed))}"
    return RefusingRegistry(parent, refused)


class Borrowed:
    """A provider adapter lent to another agent (a sub-agent, a gateway session): the
    same SDK client and connection pool; `close()` leaves it to its owner."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name = inner.name

    def stream(self, request: Request, cancel: CancelToken) -> Iterator[StreamItem]:
        return self.inner.stream(request, cancel)

    def use_store(self, store: object) -> None:
        use_store = getattr(self.inner, "use_store", None)
        if use_store is not None:
            use_store(store)

    def use_pauses(self, pauses: object) -> None:
        use_pauses = getattr(self.inner, "use_pauses", None)
        if use_pauses is not None:
            use_pauses(pauses)

    def use_prices(self, prices: object) -> None:
        use_prices = getattr(self.inner, "use_prices", None)
        if use_prices is not None:
            use_prices(prices)

    def settle(self, session_id: str | None, successor: str | None = None) -> object:
        """The borrower's session is over: its share of what the adapter holds for it
        (a Gemini explicit cache) is released; see `agent.agent.AIAgent.settle`."""
        settle = getattr(self.inner, "settle", None)
        return settle(session_id, successor) if settle is not None else None

    def close(self) -> None:
        return None
