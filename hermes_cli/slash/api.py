"""What slash-command handlers may use of the REPL, and their small shared helpers.

Handlers take any object with this shape (the Repl is one), so the slash modules never
import the REPL and the REPL imports them one way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: the REPL imports this module before its first prompt
    from rich.console import Console

    from agent.agent import AIAgent
    from agent.cancel import CancelToken
    from agent.events import Event
    from agent.images import Image
    from frontend.command_table import CommandDef
    from frontend.commands import Reply
    from frontend.config.settings import Settings
    from frontend.setup import Flags
    from frontend.usage_report import UsageReport
    from hermes_cli.render.renderer import Renderer


class UsageError(Exception):
    """The command's argument is malformed: print its usage line."""


class ReplLike(Protocol):
    """The REPL as the handlers see it."""

    @property
    def agent(self) -> AIAgent: ...  # the REPL builds it in the background
    renderer: Renderer
    console: Console
    flags: Flags
    settings: Settings | None  # read at start (None until configured)

    def approve(self, command: str, reason: str) -> bool: ...
    def run_events(self, make: Callable[[CancelToken], Iterator[Event]]) -> None: ...
    def run_turn_events(self, make: Callable[[CancelToken], Iterator[Event]]) -> None: ...
    def attach(self, text: str) -> tuple[str, tuple[Image, ...]] | None: ...
    def run_turn(self, text: str, images: tuple[Image, ...] = ()) -> None: ...
    def replace_agent(self, agent: AIAgent) -> None: ...
    def refresh_toolbar(self, agent: AIAgent | None = None) -> None: ...
    def reset_approvals(self) -> None: ...
    def request_exit(self) -> None: ...
    def report(self) -> UsageReport: ...


def usage_line(command: CommandDef) -> str:
    return f"usage: /{command.name} {command.args}".rstrip()


def one_word(arg: str) -> str:
    """The single word argument (raises UsageError for several words)."""
    if len(arg.split()) > 1:
        raise UsageError
    return arg.strip()


def short(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def show(repl: ReplLike, reply: Reply) -> None:
    """Render a shared command's Reply on the terminal."""
    if reply.level == "error":
        repl.renderer.error(reply.text)
    elif reply.level in ("notice", "warning"):
        repl.renderer.notice(reply.text)
    else:
        repl.renderer.info(reply.text)
