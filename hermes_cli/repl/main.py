"""The interactive REPL (`hermes` with no arguments).

The main thread owns the terminal: it reads lines with prompt_toolkit (history, Ctrl-R
search, Alt-Enter newlines, bracketed paste, Tab completion, a usage toolbar) and
dispatches slash commands or runs turns (repl_turn: worker thread, Ctrl-C, approvals).
A new session's agent is built in the background once the first prompt is drawn.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from agent.errors import ConfigError, HermesError
from frontend.setup import Flags
from hermes_cli.render.renderer import Renderer, make_console
from hermes_cli.repl.app import call_in_app, in_terminal
from hermes_cli.repl.autonomy import TICK, Autonomy
from hermes_cli.repl.keeper import ReplKeeper
from hermes_cli.repl.turn import EventSource, TurnRunner
from memory.errors import HermesMemoryError

if TYPE_CHECKING:  # the agent module loads in the background build (start-up speed)
    from typing import TextIO

    from prompt_toolkit import PromptSession
    from prompt_toolkit.application import Application

    from agent.agent import AIAgent
    from agent.images import Image
    from frontend.config.settings import Settings
    from frontend.usage_report import UsageReport

PROMPT = "❯ "
PROMPT_MARKER = "❯"  # what a pty sees of the prompt (the space is drawn by cursor moves)
EXIT_WINDOW = 2.0  # seconds between two Ctrl-C on an empty prompt to quit


def run_repl(flags: Flags, *, resume: str | None = None, cont: bool = False) -> int:
    """Run the REPL until the user quits; returns the exit code.

    A resumed session is built before the first prompt (its history and notices are
    shown at once). A new one is configured first (config errors stop here), and the
    agent itself (store, tools, skills, prompt) is built in the background right after
    the first prompt is drawn, so the REPL accepts input without waiting for it.

    Without a terminal there is no REPL: piped stdin is read whole as one message and
    answered like `-q` (`hermes < question.txt > answer.txt`); a terminal whose output
    goes to a pipe or file gets a clear error.
    """
    if not _is_tty(sys.stdin):
        return run_piped(flags, resume=resume, cont=cont)
    if not _is_tty(sys.stdout):
        raise ConfigError("the interactive REPL needs a terminal on stdout",
                          "to save an answer use `hermes -q \"...\" > out.txt` "
                          "(or pipe the message in: `hermes < in.txt > out.txt`)")
    from frontend import factory  # lazy: only the REPL and one-shot need it
    from hermes_cli.repl.trust import ask_context, ask_trust  # lazy, as above

    repl = Repl(flags)
    # config errors stop here; an untrusted project's .hermes/ settings are asked about
    prepared = factory.prepare(flags, resume=resume, cont=cont, ask_trust=ask_trust,
                               ask_context=ask_context)
    repl.commands = prepared.config.commands  # custom ones, for /help and Tab at once
    repl.settings = prepared.settings  # what /config shows
    if prepared.session_id is not None:
        repl.set_agent(factory.build(prepared, approve=repl.approve))
        return repl.run(resumed=True)
    repl.defer_agent(lambda: factory.build(prepared, approve=repl.approve),
                     prepared.config.provider.model, prepared.config.provider.provider)
    return repl.run()


def run_piped(flags: Flags, *, resume: str | None, cont: bool) -> int:
    """stdin is not a terminal: its whole text is one message, answered like `-q`."""
    from hermes_cli.oneshot import run_oneshot  # lazy: start-up speed of the REPL

    data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    text = data.decode("utf-8", errors="replace")
    if not text.strip():
        raise ConfigError("no message on stdin (it is not a terminal, so there is no REPL)",
                          "pipe a message in (`echo hi | hermes`), use `hermes -q \"...\"`, "
                          "or run `hermes` in a terminal")
    return run_oneshot(text.rstrip(), flags, resume=resume, cont=cont)


def _is_tty(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):  # closed or detached
        return False


class _BuildFailed(Exception):
    """Raised out of the prompt when the background agent build failed."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


class Repl:
    """One interactive session: prompt, dispatch, turns in a worker, approvals."""

    def __init__(self, flags: Flags) -> None:
        self.flags = flags
        self.console = make_console()
        self.renderer = Renderer(self.console)
        self._agent: AIAgent | None = None
        self._make: Callable[[], AIAgent] | None = None  # deferred agent build
        self._builder: threading.Thread | None = None
        self._build_error: _BuildFailed | None = None
        self._announced = threading.Event()
        self._built = threading.Event()  # the background build made an agent or failed
        self._label = ("", "")  # model, provider before the agent exists
        self.runner = TurnRunner(self.renderer)
        self.keeper = ReplKeeper()
        self.autonomy = Autonomy(self)  # /goal, /loop, /bg (hermes_cli/repl/autonomy.py)
        self._exit = False
        self._toolbar = ""
        self._last_interrupt = 0.0
        self.kept_output: list[str] = []  # `!!cmd` outputs for the next message
        self.commands = None  # frontend.custom_commands.CustomCommands of this run
        self.settings: Settings | None = None  # read at start; /config shows them

    # -- the agent, possibly built in the background --------------------------------
    def set_agent(self, agent: AIAgent) -> None:
        """A resumed session's agent, built before the first prompt (the banner then
        announces it: its stored prompt, notices, where it stopped)."""
        self._agent = agent

    def defer_agent(self, make: Callable[[], AIAgent], model: str, provider: str) -> None:
        """Build the agent with `make` in a thread once the first prompt is drawn."""
        self._make = make
        self._label = (model, provider)
        self._toolbar = f" {model} | ctx - | hit - | cost -"

    @property
    def ready(self) -> bool:
        """Whether the agent is built (keys that need it do nothing before)."""
        return self._agent is not None

    @property
    def agent(self) -> AIAgent:
        """The session's agent (waits for the background build; raises its error)."""
        if self._agent is None:
            self._start_build(None)
            if self._builder is None:
                raise RuntimeError("the REPL has no agent")
            self._builder.join()
            if self._build_error is not None:
                raise self._build_error.error
        self._announce()
        if self._agent is None:  # the build neither made one nor failed
            raise RuntimeError("the REPL has no agent")
        return self._agent

    def _start_build(self, app: Application[str] | None) -> None:
        if self._make is None:
            return
        make, self._make = self._make, None

        def build() -> None:
            try:
                agent = make()
            except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread
                self._build_error = failed = _BuildFailed(exc)
                self._built.set()
                if app is not None:
                    call_in_app(app, lambda: app.exit(exception=failed))
                return
            self._agent = agent
            self._built.set()
            self.refresh_toolbar(agent)
            call_in_app(app, lambda: in_terminal(self._announce))  # what it loaded
            agent.warm_up()  # import the SDK while the user types, not on the first message

        self._builder = threading.Thread(target=build, name="hermes-build", daemon=True)
        self._builder.start()

    def _after_first_draw(self, session: PromptSession[str]) -> None:
        """prompt_toolkit pre_run hook: start the deferred build after the first draw."""
        if self._make is not None:
            import asyncio

            asyncio.get_running_loop().call_soon(self._start_build, session.app)

    def _announce(self) -> None:
        """Print the new agent's start-up notices once."""
        if self._announced.is_set() or self._agent is None:
            return
        self._announced.set()
        from frontend.loaded import loaded_line, resumed_line  # lazy: start-up speed

        line = loaded_line(self._agent)
        if line:
            self.renderer.print(line, style="dim")
        else:  # a resumed session (--resume, -c): its stored prompt, and where it stopped
            from hermes_cli.slash.session import recap  # lazy: start-up speed

            self.renderer.print(resumed_line(self._agent), style="dim")
            recap(self)
        for notice in self._agent.startup_notices:
            self.renderer.notice(notice.text)

    def _settled_agent(self) -> AIAgent | None:
        """The agent at exit (waits for a build in flight to make it, not for its SDK
        warm-up, which exit does not need; None if it failed)."""
        if self._builder is not None:
            self._built.wait()
        return self._agent

    # -- the loop -------------------------------------------------------------------
    def run(self, resumed: bool = False) -> int:
        """Prompt until /exit, Ctrl-D or a double Ctrl-C; print the summary; return 0."""
        self._banner(resumed)
        session = self.autonomy.prompt = self._prompt_session()
        if self._agent is not None:
            self.refresh_toolbar()
        try:
            while not self._exit:
                line = self._read(session)
                if line is None:
                    break
                try:
                    if line == TICK:
                        self.autonomy.tick()
                    else:
                        self.handle_line(line)
                except KeyboardInterrupt:
                    self.renderer.end_turn()
                    self.renderer.cancelled()
        finally:
            self.finish()
        return 0

    def finish(self) -> None:
        """The end of the run: the keeper stops, the session is settled (what a provider
        bills at its end: a cache's storage to its deletion), the summary line - the
        final bill - and the agent closed."""
        from agent.agent import settle  # lazy: start-up speed

        self.autonomy.close()
        self.keeper.close()
        agent = self._settled_agent()
        if agent is not None:
            if agent.discard_if_empty():
                self.renderer.print("nothing was said: the empty session was not kept")
            else:
                settle(agent)
                self._summary(agent)
            agent.close()

    def _read(self, session: PromptSession[str]) -> str | None:
        """One input; None means quit."""
        try:
            return session.prompt(PROMPT, pre_run=lambda: self._after_first_draw(session))
        except _BuildFailed as failed:
            raise failed.error from None
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
        from frontend.command_table import parse

        text = line.strip()
        if not text:
            return
        parsed = ("", "") if text == "/" else parse(text)
        if parsed is not None:
            from hermes_cli.slash.dispatch import dispatch  # lazy: rich tables load on first use

            dispatch(self, *parsed)
            self.hold_session()
            self.refresh_toolbar()
            return
        from hermes_cli.repl import line as repl_input  # lazy: start-up speed

        literal = repl_input.escaped(line)  # "\\!x" sends "!x", "//etc" sends "/etc"
        if literal is None and text.startswith("!"):
            repl_input.run_shell(self, text, self.kept_output)
            return
        line = line if literal is None else literal
        message = repl_input.message(self, line, self.kept_output)
        if message is not None:
            self.run_turn(*message)
            from hermes_cli.repl.plan_mode import offer_approval  # lazy: start-up speed

            offer_approval(self, input, self.run_turn)

    def attach(self, text: str) -> tuple[str, tuple[Image, ...]] | None:
        """`text` with its `@path`s attached, as a typed line's are (None: one was
        refused, and said so)."""
        from hermes_cli.repl import line as repl_input  # lazy: start-up speed

        return repl_input.message(self, text, [])

    # -- turns ----------------------------------------------------------------------
    def run_turn(self, text: str, images: tuple[Image, ...] = ()) -> None:
        """Send one user message (with `images`) and render the turn."""
        agent = self.agent
        self.run_turn_events(lambda cancel: agent.run_turn(text, cancel, images=images))

    def run_turn_events(self, make: EventSource) -> None:
        """Render the events of a turn `make(cancel)` runs (a command file's turn runs its
        shell commands first): keep-warm paused, the budget's stop line after it."""
        agent = self.agent
        self.keeper.begin(agent)  # ends a keep-warm in flight first (hermes_cli/repl/keeper.py)
        try:
            from frontend.budget_text import with_stop_line  # loaded with the agent, not at start

            self.run_events(lambda cancel: with_stop_line(make(cancel), agent.budget))
        finally:
            self.keeper.end()

    def run_events(self, source: EventSource) -> None:
        """Run `source(cancel)` in a worker thread, rendering its events; then refresh
        the toolbar."""
        try:
            self.runner.run(source)
        finally:
            self.hold_session()
            self.refresh_toolbar()

    def hold_session(self) -> None:
        """Hold the lock of the session the agent drives now (one process per session):
        a no-op while it is the one held; after /new, /resume or a compression, the new
        session's lock is taken and the old one released (frontend/session_claim.py)."""
        agent = self._agent
        if agent is None or agent.store is None:
            return
        from frontend.session_claim import claim_session

        try:
            claim_session(agent.store, agent.session_id)
        except (HermesError, HermesMemoryError) as exc:
            self.renderer.error(exc.message, exc.hint)

    def approve(self, command: str, reason: str) -> bool:
        """The agents' approval callback (worker thread -> main thread -> user)."""
        return self.runner.approve(command, reason)

    def reset_approvals(self) -> None:
        self.runner.reset_approvals()

    # -- session state --------------------------------------------------------------
    def replace_agent(self, agent: AIAgent) -> None:
        """Switch to another agent (/resume); the old one is closed."""
        old, self._agent = self._agent, agent
        self.reset_approvals()
        if old is not None:
            old.discard_if_empty()
            old.close()
        self.refresh_toolbar()

    def request_exit(self) -> None:
        self._exit = True

    def report(self, agent: AIAgent | None = None) -> UsageReport:
        """The usage report of the current session (and its ancestors)."""
        from frontend.usage_report import build_report

        agent = agent or self.agent
        assert agent.store is not None  # the REPL's sessions are stored (not `inspect`'s)
        return build_report(agent.store, agent.session_id, prices=agent.config.prices,
                            context_windows=agent.config.context_windows,
                            context_tokens=agent.session.calls.context_tokens())

    def refresh_toolbar(self, agent: AIAgent | None = None) -> None:
        """Recompute the bottom toolbar (after a turn or a command, not per keypress)."""
        from frontend.budget_text import budget_text
        from hermes_cli.render.usage import toolbar_text

        agent = agent or self.agent
        try:
            self._toolbar = " " + toolbar_text(self.report(agent), model=agent.model)
            if agent.session.choices.mode:
                self._toolbar += f" | {agent.session.choices.mode.upper()} MODE"
            if agent.config.budget.any:
                self._toolbar += " | budget " + budget_text(agent.budget.status(), short=True)
        except (HermesError, HermesMemoryError) as exc:
            self._toolbar = f" {agent.model} | {exc.message}"

    # -- setup and teardown ---------------------------------------------------------
    def _prompt_session(self) -> PromptSession[str]:
        from hermes_cli.repl.prompt import prompt_session  # lazy: start-up speed

        return prompt_session(self)

    def _banner(self, resumed: bool) -> None:
        from hermes_cli import __version__

        agent = self._agent
        if agent is None:
            model, provider = self._label
            where = "new session"
        else:
            model, provider = agent.model, agent.provider_name
            count = len(agent.conversation.messages)
            where = f"{'resumed' if resumed else 'session'} {agent.session_id}"
            where += f" ({count} messages)" if resumed else ""
        self.renderer.print(f"hermes {__version__} · {model} ({provider}) · {where}", style="dim")
        self.renderer.print("/help for commands · Alt-Enter for a newline · Ctrl-D to exit",
                            style="dim")
        self._announce()

    def _summary(self, agent: AIAgent) -> None:
        from hermes_cli.render.usage import fmt_money, fmt_ratio

        try:
            session = self.report(agent).session
            cost, hit = fmt_money(session.cost), fmt_ratio(session.hit_rate)
        except (HermesError, HermesMemoryError):
            cost = hit = "unknown"
        turns = agent.state.turn
        self.renderer.print(f"session {agent.session_id} · {turns} turn{'s' * (turns != 1)} · "
                            f"cost {cost} · hit rate {hit}")
        self.renderer.print(f"resume with: hermes --resume {agent.session_id}")

