"""The editor as the turn's approver; never as the file tools' reader or writer.

It is called from the turn's worker thread. Each question becomes an `Ask` put on
the turn's event queue (frontend/bridge.py), so the editor sees it after the
`tool_call` it is about; the session's event loop sends it (session.py `answer`) and
hands the reply back through a future. Between turns nobody is asked: an approval is
refused (as the REPL refuses with no turn on screen).

Files: an editor offering fs/read_text_file and fs/write_text_file is not asked to read
or write them. hermes would check a path and then hand the editor only its name, which
the editor resolves again later: a background process of the sandbox swapping the name
for a link in between made the editor write ~/.bashrc or send ~/.ssh/id_rsa to the model.
hermes reads and writes workspace files itself, through safefs (agent/tools/file_open.py:
beneath the root, through directory descriptors, a link out refused at the open), and
the editor sees each change as the tool call's diff and on disk.
"""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from frontend.visible import visible

if TYPE_CHECKING:
    from acp.interfaces import Client

T = TypeVar("T")

SLICE = 0.5  # seconds between looks at whether the connection is still there
ALLOW_ONCE, ALLOW_ALWAYS, REJECT = "allow-once", "allow-always", "reject-once"
OPTIONS = ((ALLOW_ONCE, "Allow once", "allow_once"),
           (ALLOW_ALWAYS, "Allow always (this session, for this reason)", "allow_always"),
           (REJECT, "Reject", "reject_once"))


@dataclass
class Ask(Generic[T]):
    """A request to the editor: `send(conn)` makes the awaitable, its result goes to
    `future`. `cancellable`: a cancelled turn answers it (a permission question)."""

    send: Callable[[Client], Awaitable[T]]
    future: concurrent.futures.Future[T] = field(default_factory=concurrent.futures.Future)
    cancellable: bool = False


class Channel:
    """The running turn's way to the editor (`sink` None between turns; `open` False
    once the connection is gone: a question then fails at once instead of waiting)."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.sink: Callable[[object], None] | None = None
        self.tool_call: tuple[str, str] | None = None  # (id, name) of the tool running
        self.open = True

    def ask(self, send: Callable[[Client], Awaitable[T]], *, cancellable: bool = False,
            timeout: float | None = None) -> T:
        sink = self.sink
        if sink is None or not self.open:
            raise LookupError("no turn is running")
        request: Ask[T] = Ask(send, cancellable=cancellable)
        sink(request)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:  # in slices, so a connection that went away never strands the thread
            try:
                return request.future.result(SLICE)
            except concurrent.futures.TimeoutError:
                if not self.open:
                    raise LookupError("the editor is gone") from None
                if deadline is not None and time.monotonic() > deadline:
                    raise


class EditorApprovals:
    """The agent's `approve(command, reason)`: session/request_permission. "Allow always"
    answers the same reason for the rest of this ACP session - what the REPL's "always"
    does - never more than the REPL would have asked."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.always: set[str] = set()
        self.calls = 0

    def __call__(self, command: str, reason: str) -> bool:
        if reason in self.always:
            return True
        from acp.schema import PermissionOption, ToolCallUpdate  # lazy: the SDK

        self.calls += 1
        running = self.channel.tool_call
        call_id = running[0] if running else f"approval-{self.calls}"
        options = [PermissionOption.model_validate({"option_id": oid, "name": name, "kind": kind})
                   for oid, name, kind in OPTIONS]
        update = ToolCallUpdate(tool_call_id=call_id, title=f"{visible(command)} ({visible(reason)})",
                                raw_input={"command": command, "reason": reason})
        try:
            reply = self.channel.ask(
                lambda conn: conn.request_permission(options=options, session_id=self.channel.session_id,
                                                     tool_call=update), cancellable=True)
        except LookupError:
            return False
        chosen = getattr(getattr(reply, "outcome", None), "option_id", None)
        if chosen == ALLOW_ALWAYS:
            self.always.add(reason)
        return chosen in (ALLOW_ONCE, ALLOW_ALWAYS)
