"""Tool registry: byte-stable schemas, toolsets, and dispatch that never raises.

Adding a tool is one small module in `agent/tools/` that defines `TOOL = Tool(...)`
(or `TOOLS = [...]`); `discover()` finds it. Schemas are sorted by name and serialised
canonically, so the tools prefix of every request is byte-identical.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from agent.errors import ToolError
from agent.events import Notice
from agent.hooks.events import POST_TOOL_NOTE, PRE_TOOL_NOTE
from agent.messages import ToolCall, ToolSchema, canonical_json
from agent.permissions.gate import refusal
from agent.prompts.untrusted import frame
from memory.text import NOTE as text_note
from memory.text import is_storable, storable

if TYPE_CHECKING:
    from agent.cancel import CancelToken
    from agent.events import Event
    from agent.hooks.events import SessionHooks
    from agent.hooks.runner import Answer
    from agent.images import Image
    from agent.permissions.rules import Rules
    from agent.providers.image_scale import Prepared
    from agent.sandbox import Sandbox, SandboxSettings
    from agent.tools.file_port import FilePort
    from agent.tools.web.page import SessionPages
    from agent.tools.web.settings import WebSettings
    from memory.notes import Notes
    from memory.store import SessionStore
    from skills.loader import SkillCatalog
    from skills.manage import Shelf

    # spawn_child(goal, brief, toolsets, cancel): a sub-agent's turn, its events
    SpawnChild = Callable[[str, str, tuple[str, ...], CancelToken | None], Iterator[Event]]

T = TypeVar("T")


@dataclass
class ToolState:
    """One session's tool scratch space, typed (it survives compression's session seam).

    `cwd`: where `cd` in the terminal left the session (None: the config's cwd);
    `todos`: the todo list; `process_groups`: background process groups to kill on
    close; `cancel`: the running turn's token; `pending_events`: events a tool produced
    for the turn (a sub-agent's usage), drained by the loop after each tool group;
    `file_diff`: what the last write changed, put on its ToolFinished event."""

    cwd: str | None = None
    todos: list[dict[str, str]] = field(default_factory=list)
    process_groups: set[int] = field(default_factory=set)
    cancel: CancelToken | None = None  # the running turn's
    pending_events: list[Event] = field(default_factory=list)
    delegate_slots: threading.BoundedSemaphore | None = None
    file_diff: str = ""  # the last write's unified diff, for the front end (never the model)
    sandbox: Sandbox | None = None  # the session's, built on first use
    allowed_writes: set[str] = field(default_factory=set)  # outside-root writes a person allowed
    plan_sandbox: Sandbox | None = None  # the read-only Sandbox plan mode's commands run in
    # agent.tools.term_changes.Index: what terminal commands change (Any: that module
    # imports this one)
    workspace_index: Any = None
    # agent.tools.term_left.LeftRunning: what the files were when a command returned
    # leaving processes running (None: it left none)
    left_running: Any = None
    web: SessionPages | None = None  # pages and searches read once

    def drain_events(self) -> list[Event]:
        events, self.pending_events = self.pending_events, []
        return events

    def take_diff(self) -> str:
        diff, self.file_diff = self.file_diff, ""
        return diff


@dataclass(frozen=True)
class ToolServices:
    """The collaborators tools may use, typed (never the agent itself).

    `spawn_child(goal, brief, toolsets, cancel)` runs a sub-agent turn and yields its
    events (usage already recorded on the parent session); None where delegation is
    not available. `toolsets` are the session's enabled toolsets."""

    store: SessionStore | None = None
    notes: Notes | None = None
    skills: SkillCatalog | None = None
    owner: str | None = None
    toolsets: tuple[str, ...] = ()
    spawn_child: SpawnChild | None = None
    # agent.checkpoints.CheckpointStore: write tools save files first (Any: it imports
    # this module through agent.sandbox.file_policy)
    checkpoints: Any = None
    skill_shelf: Shelf | None = None  # where skill_manage writes (None: refused)
    files: FilePort | None = None  # an editor's buffers (None: the disk)
    # (bytes, name) -> the image prepared for the session's current model; raises
    # agent.images.ImageError (no vision); None where images cannot be shown
    attach_image: Callable[[bytes, str], Prepared] | None = None



@dataclass
class ToolContext:
    """What a tool may touch: the session's id, home and cwd, its typed state and
    services. `approve(command, reason) -> bool` asks the user about a dangerous action
    (the REPL prompts; one-shot and gateway refuse unless `yolo`)."""

    session_id: str
    home: Path
    cwd: Path
    yolo: bool = False
    approve: Callable[[str, str], bool] | None = None
    state: ToolState = field(default_factory=ToolState)
    services: ToolServices = field(default_factory=ToolServices)
    sandbox: SandboxSettings | None = None  # None = the default (on)
    mode: str = ""  # the session's mode ("plan": read-only, agent/permissions/plan.py)
    permissions: Rules | None = None  # from config.yaml
    web: WebSettings | None = None  # None = public addresses, no search
    hooks: SessionHooks | None = None  # PreToolUse/PostToolUse around a call


@dataclass(frozen=True)
class Tool:
    """A tool: schema + handler. `run(args, ctx)` returns text or raises ToolError."""

    name: str
    toolset: str
    description: str
    parameters: dict[str, Any]
    run: Callable[[dict[str, Any], ToolContext], str]
    read_only: bool = False
    # calls with the same non-empty group that come together run in parallel; read-only
    # tools default to "read", everything else runs alone, in order
    parallel_group: str = ""
    # the arguments naming files it writes: a deny on writing a path (a `write_file(...)` or
    # `patch(...)` rule, agent/permissions/rules.py) refuses every tool that writes it
    writes: tuple[str, ...] = ()
    # its results carry outside text (files, command output, search hits, MCP): dispatch
    # hands them to the model inside the untrusted-data frame (agent/prompts/untrusted.py)
    untrusted: bool = False

    @property
    def concurrency(self) -> str:
        return self.parallel_group or ("read" if self.read_only else "")

    @property
    def schema(self) -> ToolSchema:
        """The schema with every JSON object's keys sorted (canonical wire bytes)."""
        return ToolSchema(self.name, self.description, json.loads(canonical_json(self.parameters)))


@dataclass(frozen=True)
class ToolResult:
    """Outcome of one dispatched call: `content` as the tool produced it (what front ends
    show); `for_model` is what the conversation keeps (framed when `untrusted`)."""

    call: ToolCall
    content: str
    ok: bool
    duration: float
    untrusted: bool = False
    images: tuple[Image, ...] = ()  # shown to the model with the result
    note: str = ""  # a PostToolUse hook's word to the model, after the (framed) result

    @property
    def for_model(self) -> str:
        return (frame(self.call.name, self.content) if self.untrusted else self.content) + self.note


class ToolRegistry:
    """The tools enabled for a session (fixed for the session's lifetime)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._schemas: list[ToolSchema] | None = None
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"duplicate tool name: {tool.name}")
        self._tools[tool.name] = tool
        self._schemas = None

    def names(self) -> list[str]:
        return sorted(self._tools)

    def tools(self) -> list[Tool]:
        """The tools, sorted by name."""
        return [self._tools[name] for name in self.names()]

    def toolsets(self) -> list[str]:
        return sorted({tool.toolset for tool in self._tools.values()})

    def frames_results(self) -> bool:
        """Whether any tool's results reach the model in the untrusted-data frame."""
        return any(tool.untrusted for tool in self._tools.values())

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def schemas(self) -> list[ToolSchema]:
        """Schemas sorted by name: the same list, byte for byte, on every call."""
        if self._schemas is None:
            self._schemas = [self._tools[name].schema for name in sorted(self._tools)]
        return list(self._schemas)

    def subset(self, toolsets: Iterable[str] | None = None, exclude: Iterable[str] = ()) -> ToolRegistry:
        """A new registry with the tools of `toolsets` (all when None) minus `exclude`."""
        wanted = None if toolsets is None else set(toolsets)
        excluded = set(exclude)
        return ToolRegistry(
            tool
            for tool in self._tools.values()
            if (wanted is None or tool.toolset in wanted) and tool.name not in excluded
        )

    def dispatch(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Run one call. Every failure becomes a clear error result for the model."""
        started = time.monotonic()
        tool = self._tools.get(call.name)
        if tool is None:
            available = ", ".join(self.names()) or "none"
            return ToolResult(call, f"Error: unknown tool '{call.name}'. Available tools: {available}.", False, 0.0)
        try:
            args = call.parsed_arguments()
        except ValueError as exc:
            return ToolResult(call, f"Error: arguments are not a valid JSON object ({exc}).", False, 0.0)
        refused = refusal(tool, args, ctx)
        if refused is not None:
            return ToolResult(call, refused, False, time.monotonic() - started)
        if ctx.hooks is not None:  # PreToolUse: a block is the result the model reads
            before = _said(ctx, ctx.hooks.pre_tool(ctx.session_id, call.name, args, ctx.state.cancel))
            if before.blocked:
                return ToolResult(call, PRE_TOOL_NOTE.format(reason=before.reason), False,
                                  time.monotonic() - started)
        try:
            content = tool.run(args, ctx)
            ok = True
        except ToolError as exc:
            content, ok = f"Error: {exc.message}", False
        except (TypeError, KeyError) as exc:
            content, ok = f"Error: bad arguments for {call.name}: {exc}", False
        except OSError as exc:
            content, ok = f"Error: {exc.strerror or exc} ({getattr(exc, 'filename', '') or ''})", False
        except Exception as exc:  # noqa: BLE001 - a tool bug must not kill the turn
            content, ok = f"Error: {call.name} failed: {type(exc).__name__}: {exc}", False
        if not is_storable(content):  # e.g. a file name that is not UTF-8: escape, and say so
            content = f"{storable(content)}\n[note: {text_note}]"
        note = ""
        if ctx.hooks is not None:  # PostToolUse sees every call that ran
            after = _said(ctx, ctx.hooks.post_tool(ctx.session_id, call.name, args, content, ok,
                                                   ctx.state.cancel))
            note = POST_TOOL_NOTE.format(reason=after.reason) if after.blocked else ""
        return ToolResult(call, str(content), ok, time.monotonic() - started, tool.untrusted,
                          getattr(content, "images", ()), note)


def _said(ctx: ToolContext, answer: Answer) -> Answer:
    """A hook's warnings go to the user (the loop passes pending events on)."""
    ctx.state.pending_events.extend(Notice(w, "warning") for w in answer.warnings)
    return answer


def discover() -> list[Tool]:
    """Import every module of the `agent.tools` package and collect its TOOL/TOOLS."""
    import agent.tools as package

    found: list[Tool] = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name in {"registry", "toolsets", "untrusted"}:
            continue
        module = importlib.import_module(f"agent.tools.{info.name}")
        if hasattr(module, "TOOL"):
            found.append(module.TOOL)
        found.extend(getattr(module, "TOOLS", ()))
    return found


@overload
def require(args: dict[str, Any], key: str) -> str: ...
@overload
def require(args: dict[str, Any], key: str, kind: type[T]) -> T: ...
def require(args: dict[str, Any], key: str, kind: type = str) -> object:
    """Fetch a required argument or raise a ToolError the model can act on."""
    if key not in args or args[key] is None:
        raise ToolError(f"missing required argument '{key}'")
    value = args[key]
    if kind is int and isinstance(value, bool):
        raise ToolError(f"argument '{key}' must be an integer")
    if not isinstance(value, kind):
        raise ToolError(f"argument '{key}' must be of type {kind.__name__}")
    return value
