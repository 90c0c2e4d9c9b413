"""Running one turn of the REPL: the worker thread, Ctrl-C, and dangerous-command approval.

The main thread owns the terminal. `TurnRunner.run(source)` starts `source(cancel)` in a
worker thread and renders its events from a queue, so Ctrl-C always reaches the main
thread at once and trips the turn's CancelToken (which aborts the in-flight request).
A dangerous command's approval travels the same queue: the worker blocks on a reply
queue while the main thread asks the user.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.text import Text

from agent.cancel import CancelToken
from agent.errors import HermesError
from agent.events import ErrorEvent, Event
from frontend.visible import visible
from hermes_cli.render.renderer import Renderer
from memory.errors import HermesMemoryError

if TYPE_CHECKING:  # prompt_toolkit loads with the first question (start-up speed)
    from prompt_toolkit import PromptSession

# events the worker may be ahead of the screen: a reply cannot complete (and be kept
# whole) while the user still reads its start, so Ctrl-C keeps what was shown
AHEAD = 4
APPROVE_ANSWERS = {"y": "yes", "yes": "yes", "n": "no", "no": "no", "": "no",
                   "a": "always", "always": "always"}

WAITING_FOR_TOOL = "stopping… (waiting for the running tool to return)"

EventSource = Callable[[CancelToken], Iterable[Event]]
_END = object()


@dataclass
class ApprovalRequest:
    """A worker thread asks the main thread whether a dangerous command may run."""

    command: str
    reason: str
    reply: queue.Queue[Any] = field(default_factory=lambda: queue.Queue(maxsize=1))


class TurnRunner:
    """Runs event sources in a worker thread and renders them on the calling thread."""

    def __init__(self, renderer: Renderer) -> None:
        self.renderer = renderer
        self._events: queue.Queue[Any] | None = None
        self._always: set[str] = set()
        self._asker: PromptSession[str] | None = None

    def run(self, source: EventSource) -> None:
        """Run `source(cancel)` in a worker; render its events here until it ends."""
        cancel = CancelToken()
        events: queue.Queue[Any] = queue.Queue(maxsize=AHEAD)
        worker = threading.Thread(target=_pump, args=(source, cancel, events),
                                  name="hermes-turn", daemon=True)
        self._events = events
        self.renderer.start_turn()
        try:
            with _no_echo():
                worker.start()
                self._drain(events, cancel)
        finally:
            self._events = None
            self.renderer.end_turn()

    def _drain(self, events: queue.Queue[Any], cancel: CancelToken) -> None:
        while True:
            try:
                try:  # woken by the next event, or when held-back text is due: no polling
                    item = events.get(timeout=self.renderer.text_due())
                except queue.Empty:
                    self.renderer.tick()  # text held back by throttling, once it is quiet
                    continue
                if item is _END:
                    return
                if isinstance(item, ApprovalRequest):
                    self._ask(item, cancel)
                else:
                    self.renderer.handle(item)
            except KeyboardInterrupt:
                self._interrupt(cancel)

    def _interrupt(self, cancel: CancelToken) -> None:
        if cancel.cancelled:
            self.renderer.notice(WAITING_FOR_TOOL)
            return
        cancel.cancel(shown=self.renderer.reply_shown)
        self.renderer.cancelled()
        if self.renderer.tool_running:
            self.renderer.notice(WAITING_FOR_TOOL)

    # -- dangerous-command approval -------------------------------------------------
    def approve(self, command: str, reason: str) -> bool:
        """The agent's `approve` callback, called from the worker thread."""
        if reason in self._always:
            return True
        events = self._events
        if events is None:
            return False  # no turn is being rendered: nobody to ask
        request = ApprovalRequest(command, reason)
        events.put(request)
        return bool(request.reply.get())

    def reset_approvals(self) -> None:
        """Forget "always" answers (a new or resumed session)."""
        self._always.clear()

    def _ask(self, request: ApprovalRequest, cancel: CancelToken) -> None:
        self.renderer.pause()
        # the model's text with its control characters written out: what is read runs
        command, reason = visible(request.command), visible(request.reason)
        self.renderer.print(Text.assemble(("Run ", "bold"), (f"`{command}`", "bold cyan"),
                                          ("? ", "bold"), (f"({reason})", "yellow")))
        answer = "no"
        try:
            while True:
                reply = self._question().prompt("[y]es / [n]o / [a]lways this session: ")
                answer = APPROVE_ANSWERS.get(reply.strip().lower(), "")
                if answer:
                    break
                self.renderer.notice("answer y, n or a")
        except (KeyboardInterrupt, EOFError):
            answer = "no"
            cancel.cancel()
            self.renderer.cancelled()
        finally:
            if answer == "always":
                self._always.add(request.reason)
            request.reply.put(answer != "no")
            self.renderer.resume()

    def _question(self):
        """One prompt session for every approval question (no history)."""
        if self._asker is None:
            from prompt_toolkit import PromptSession

            self._asker = PromptSession()
        return self._asker


def _pump(source: EventSource, cancel: CancelToken, events: queue.Queue[Any]) -> None:
    """Worker thread: put every event of `source` on the queue, then the end marker."""
    try:
        for event in source(cancel):
            events.put(event)
    except (HermesError, HermesMemoryError) as exc:
        events.put(ErrorEvent(exc.message, getattr(exc, "hint", "")))
    except Exception as exc:  # noqa: BLE001 - shown to the user, never a traceback
        events.put(ErrorEvent(f"internal error: {type(exc).__name__}: {exc}",
                              "please report this; the session is kept"))
    finally:
        events.put(_END)


@contextlib.contextmanager
def _no_echo() -> Iterator[None]:
    """Keys typed during a turn are not echoed over the output (they stay buffered as
    type-ahead for the next prompt, Ctrl-D included: outside canonical mode it is a byte
    the next prompt reads, not an end-of-file nobody reads); Ctrl-C still raises
    KeyboardInterrupt."""
    try:
        import termios
    except ImportError:  # not a POSIX terminal
        yield
        return
    try:
        fd = sys.stdin.fileno()
        old = termios.tcgetattr(fd)
    except (termios.error, OSError, ValueError):  # stdin is not a terminal
        yield
        return
    new = list(old)
    new[3] = new[3] & ~(termios.ECHO | termios.ICANON)  # Ctrl-D stays a key, not a lost EOF
    new[6] = list(new[6])
    new[6][termios.VMIN], new[6][termios.VTIME] = 1, 0
    try:
        termios.tcsetattr(fd, termios.TCSANOW, new)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, old)
