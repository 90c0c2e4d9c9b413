"""The interactive REPL (`hermes` with no arguments).

The main thread owns the terminal: it reads lines with prompt_toolkit and renders a
turn's events from a queue. The turn itself runs in a worker thread, so Ctrl-C always
reaches the main thread at once and trips the turn's CancelToken (which aborts the
in-flight request). A dangerous command's approval travels the same queue: the worker
blocks on a reply queue while the main thread asks the user.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from agent.cancel import CancelToken
from agent.errors import HermesError
from agent.events import ErrorEvent, Event
from hermes_cli.render import Renderer, make_console
from hermes_cli.setup import Flags
from memory.errors import HermesMemoryError

PROMPT = "❯ "
PROMPT_MARKER = "❯"  # what a pty sees of the prompt (the space is drawn by cursor moves)
EXIT_WINDOW = 2.0  # seconds between two Ctrl-C on an empty prompt to quit
POLL = 0.05
APPROVE_ANSWERS = {"y": "yes", "yes": "yes", "n": "no", "no": "no", "": "no",
                   "a": "always", "always": "always"}

EventSource = Callable[[CancelToken], Iterable[Event]]


@dataclass
class ApprovalRequest:
    """A worker thread asks the main thread whether a dangerous command may run."""

    command: str
    reason: str
    reply: queue.Queue = field(default_factory=lambda: queue.Queue(maxsize=1))


_END = object()


def run_repl(flags: Flags, *, resume: str | None = None, cont: bool = False) -> int:
    """Run the REPL until the user quits; returns the exit code."""
    from hermes_cli.oneshot import build_agent

    repl = Repl(flags)
    repl.agent = build_agent(flags, resume=resume, cont=cont, approve=repl.approve)
    return repl.run(resumed=bool(resume or cont))


class Repl:
    """One interactive session: prompt, dispatch, turns in a worker, approvals."""

    def __init__(self, flags: Flags) -> None:
        self.flags = flags
        self.console = make_console()
        self.renderer = Renderer(self.console)
        self.agent = None
        self.turns = 0
        self._events: queue.Queue | None = None
        self._always: set[str] = set()
        self._exit = False
        self._toolbar = ""
        self._last_interrupt = 0.0

    # -- the loop -------------------------------------------------------------------
    def run(self, resumed: bool = False) -> int:
        """Prompt until /exit, Ctrl-D or a double Ctrl-C; print the summary; return 0."""
        self._banner(resumed)
        session = self._prompt_session()
        self.refresh_toolbar()
        try:
            while not self._exit:
                line = self._read(session)
                if line is None:
                    break
                try:
                    self.handle_line(line)
                except KeyboardInterrupt:
                    self.renderer.end_turn()
                    self.renderer.cancelled()
        finally:
            self._summary()
            self.agent.close()
        return 0

    def _read(self, session) -> str | None:
        """One input; None means quit."""
        try:
            return session.prompt(PROMPT)
        except EOFError:
            return None
        except KeyboardInterrupt:
            if session.default_buffer.text.strip():
                return ""  # Ctrl-C on a line being typed just clears it
            now = time.monotonic()
            if now - self._last_interrupt <= EXIT_WINDOW:
                return None
            self._last_interrupt = now
            self.renderer.notice("press Ctrl-C again or Ctrl-D to exit")
            return ""

    def handle_line(self, line: str) -> None:
        """A slash command, or a message for the model."""
        from agent.commands import parse

        text = line.strip()
        if not text:
            return
        parsed = parse(text)
        if parsed is not None:
            from hermes_cli.slash import dispatch

            dispatch(self, *parsed)
            self.refresh_toolbar()
            return
        if text.startswith("//"):
            line = line.lstrip()[1:]  # "//etc" sends "/etc"
        self.run_turn(line)

    # -- turns ----------------------------------------------------------------------
    def run_turn(self, text: str) -> None:
        """Send one user message and render the turn."""
        agent = self.agent
        self.turns += 1
        self.run_events(lambda cancel: agent.run_turn(text, cancel))

    def run_events(self, source: EventSource) -> None:
        """Run `source(cancel)` in a worker thread; render its events here until it ends."""
        cancel = CancelToken()
        events: queue.Queue = queue.Queue()
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
            self.refresh_toolbar()

    def _drain(self, events: queue.Queue, cancel: CancelToken) -> None:
        while True:
            try:
                try:
                    item = events.get(timeout=POLL)
                except queue.Empty:
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
            self.renderer.notice("stopping… (waiting for the running tool to return)")
            return
        cancel.cancel()
        self.renderer.cancelled()

    # -- dangerous-command approval -------------------------------------------------
    def approve(self, command: str, reason: str) -> bool:
        """Called from the worker thread: ask the user through the main thread."""
        if reason in self._always:
            return True
        events = self._events
        if events is None:
            return False
        request = ApprovalRequest(command, reason)
        events.put(request)
        return bool(request.reply.get())

    def reset_approvals(self) -> None:
        """Forget "always" answers (a new or resumed session)."""
        self._always.clear()

    def _ask(self, request: ApprovalRequest, cancel: CancelToken) -> None:
        from prompt_toolkit import prompt

        self.renderer.pause()
        question = (f"Run `{request.command}`? ({request.reason}) "
                    "[y]es / [n]o / [a]lways this session: ")
        answer = "no"
        try:
            while True:
                answer = APPROVE_ANSWERS.get(prompt(question).strip().lower(), "")
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

    # -- session state --------------------------------------------------------------
    def replace_agent(self, agent) -> None:
        """Switch to another agent (/resume); the old one is closed."""
        old, self.agent = self.agent, agent
        self.reset_approvals()
        if old is not None:
            old.close()
        self.refresh_toolbar()

    def request_exit(self) -> None:
        self._exit = True

    def report(self):
        """The usage report of the current session (and its ancestors)."""
        from agent.usage_report import build_report

        agent = self.agent
        return build_report(agent.store, agent.session_id, prices=agent.config.prices,
                            context_windows=agent.config.context_windows)

    def refresh_toolbar(self) -> None:
        """Recompute the bottom toolbar (after a turn or a command, not per keypress)."""
        from hermes_cli.render_usage import toolbar_text

        try:
            self._toolbar = " " + toolbar_text(self.report())
        except (HermesError, HermesMemoryError) as exc:
            self._toolbar = f" {self.agent.model} | {exc.message}"

    # -- setup and teardown ---------------------------------------------------------
    def _prompt_session(self):
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory
        from prompt_toolkit.key_binding import KeyBindings

        from hermes_cli.completion import SlashCompleter
        from hermes_cli.config import hermes_home

        bindings = KeyBindings()

        @bindings.add("escape", "enter")
        def _newline(event) -> None:
            event.current_buffer.insert_text("\n")

        home = hermes_home()
        home.mkdir(parents=True, exist_ok=True)
        return PromptSession(
            history=FileHistory(str(home / "repl_history")),
            completer=SlashCompleter(self._completion_sources()),
            complete_while_typing=True,
            bottom_toolbar=lambda: self._toolbar,
            key_bindings=bindings,
            multiline=False,
            prompt_continuation=lambda width, line, wrap: "… ".rjust(width),
        )

    def _completion_sources(self) -> dict[str, Callable[[], Iterable[tuple[str, str]]]]:
        from hermes_cli.slash_info import model_choices, personality_choices

        def skills() -> Iterator[tuple[str, str]]:
            for skill in self.agent.skills.skills.values():
                yield skill.name, _short(skill.description)

        def sessions() -> Iterator[tuple[str, str]]:
            for row in self.agent.store.list_sessions(limit=20):
                yield row["id"], _short(str(row.get("title") or row.get("preview") or ""))

        return {
            "model": lambda: model_choices(self.agent),
            "personality": lambda: [(name, "") for name in [*personality_choices(), "none"]],
            "skill": skills,
            "session": sessions,
        }

    def _banner(self, resumed: bool) -> None:
        from hermes_cli import __version__

        agent = self.agent
        what = "resumed" if resumed else "session"
        count = len(agent.conversation.messages)
        extra = f" ({count} messages)" if resumed else ""
        self.renderer.print(f"hermes {__version__} · {agent.model} ({agent.provider_name}) · "
                            f"{what} {agent.session_id}{extra}", style="dim")
        self.renderer.print("/help for commands · Alt-Enter for a newline · Ctrl-D to exit",
                            style="dim")
        for notice in agent.startup_notices:
            self.renderer.notice(notice.text)

    def _summary(self) -> None:
        from hermes_cli.render_usage import fmt_money, fmt_ratio

        agent = self.agent
        if agent is None:
            return
        try:
            session = self.report().session
            cost, hit = fmt_money(session.cost), fmt_ratio(session.hit_rate)
        except (HermesError, HermesMemoryError):
            cost = hit = "unknown"
        turns = agent.state.turn
        self.renderer.print(f"session {agent.session_id} · {turns} turn{'s' * (turns != 1)} · "
                            f"cost {cost} · hit rate {hit}")
        self.renderer.print(f"resume with: hermes --resume {agent.session_id}")


def _pump(source: EventSource, cancel: CancelToken, events: queue.Queue) -> None:
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
    type-ahead for the next prompt); Ctrl-C still raises KeyboardInterrupt."""
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
    new[3] = new[3] & ~termios.ECHO
    try:
        termios.tcsetattr(fd, termios.TCSANOW, new)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, old)


def _short(text: str, limit: int = 50) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
