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
from agent.providers.base import Charge, Provider, Services, SessionResources, StreamItem
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

    def open(self, services: Services) -> None:
        """Offered to the lent adapter (a gateway's shared one is opened by its first
        borrower; it keeps what it was first given)."""
        inner = self.inner
        if isinstance(inner, SessionResources):
            inner.open(services)

    def charges(self, session_id: str | None) -> Charge | None:
        inner = self.inner
        return inner.charges(session_id) if isinstance(inner, SessionResources) else None

    def settle(self, session_id: str | None, successor: str | None = None) -> Charge | None:
        """The borrower's session is over: its share of what the adapter holds for it
        (a Gemini explicit cache) is released; see `agent.agent.settle`."""
        inner = self.inner
        return (inner.settle(session_id, successor) if isinstance(inner, SessionResources)
                else None)

    def close(self) -> None:
        return None
