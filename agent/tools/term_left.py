"""What a terminal command left running may do after it returned.

`cmd & ` (a server, a watcher, a delayed writer) lives on after its command: the arming
guard (agent/sandbox/arming.py) judges only what changed while a command ran, and the
change index (term_changes.py) takes what it finds before a command as someone else's.
So when a command leaves processes behind (`left_running`: its process group, or any
process in the sandbox session's PID namespace besides PID 1), `LeftRunning.take` notes
the arming entries and the project context files as they are then; `LeftRunning.judge`
- before the next command, and when the session's processes are released - treats what
changed since as the agent's:
- an arming entry is set aside (renamed NAME.disarmed-by-hermes, the version before put
  back: it may be the user's own edit made meanwhile, so nothing is deleted);
- a context file (AGENTS.md...) is recorded as the agent's (agent/prompts/
  authored_context.py): a later session asks before loading it.
No processes left: nothing is taken, and a change between commands stays the user's.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import safefs
from agent.prompts import authored_context
from agent.prompts.context_search import PRECEDENCE, git_root, search_folders
from agent.sandbox import arming, incidents
from agent.tools import term_changes

if TYPE_CHECKING:
    from agent.sandbox.backend import Sandbox
    from agent.tools.registry import ToolContext, ToolState

logger = logging.getLogger(__name__)


def left_running(state: ToolState, box: Sandbox) -> bool:
    """Whether an earlier command of this session left a process running."""
    if any(_group_alive(pgid) for pgid in state.process_groups):
        return True
    session = box.session if box.active else None
    return session is not None and session.occupied()


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


@dataclass
class LeftRunning:
    """The arming entries and context files when a command returned leaving processes."""

    home: Path
    session: str
    root: str
    arming: arming.Snapshot | None
    hidden: term_changes.Hidden
    context: dict[str, bytes | None] = field(default_factory=dict)  # None: not a file

    @classmethod
    def take(cls, ctx: ToolContext, box: Sandbox, cwd: str) -> LeftRunning:
        root = os.path.realpath(ctx.cwd)
        snap = arming.Watch(box, cwd, Path(ctx.home)).snap  # None when the sandbox is off
        hidden = term_changes.hidden_check(box)
        left = cls(Path(ctx.home), ctx.session_id, root, snap, hidden)
        found = _context_files(root, cwd, hidden)
        if found is None:  # too many files to follow: every context file there is the agent's
            authored_context.unfollowed(left.home, root, ctx.session_id)
        else:
            left.context = found
        return left

    def judge(self, cwd: str) -> str:
        """Act on what changed since `take`; the note for the model ("" when nothing did)."""
        lines = self.arming.revert(None, later=True) if self.arming is not None else []
        now = _context_files(self.root, cwd, self.hidden) or {}
        for path in sorted(set(now) | set(self.context)):
            before, after = self.context.get(path), now.get(path)
            if after is not None and after != before:
                authored_context.record(self.home, path, before, after, self.session)
                lines.append(f"{path} (written after its command returned): a later session "
                             "asks the user before loading it")
        if not lines:
            return ""
        stuck = [line for line in lines if line.endswith("check it")]
        if stuck and self.arming is not None:
            incidents.record(self.home, self.arming.tops[0], stuck)
        shown = "\n".join(f"  {line}" for line in lines)
        logger.info("changed by processes left running:\n%s", shown)
        return ("[a process an earlier command left running changed files that would run "
                f"programs later or instruct a later session; hermes acted on them:\n{shown}\n"
                "Ask the user to make such changes themselves.]\n")


def _context_files(root: str, cwd: str, hidden: term_changes.Hidden) -> dict[str, bytes | None] | None:
    """Each project context file (AGENTS.md...) beneath `root` and in the folders a session
    started at `cwd` or `root` looks in, with its bytes (None: not a regular file or
    link to one); None when `root` holds too many files to walk."""
    named = _named_beneath(root, hidden)
    if named is None:
        return None
    paths = set(named)
    for start in {root, cwd}:
        where = Path(start)
        for folder in search_folders(where, git_root(where)):
            paths.update(str(folder / name) for name in PRECEDENCE)
    found: dict[str, bytes | None] = {}
    for path in paths:
        try:
            found[path] = safefs.read_bytes("/", path)
        except (OSError, ValueError, safefs.Escape, safefs.NotRegular):
            found[path] = None
    return found


def _named_beneath(root: str, hidden: term_changes.Hidden) -> list[str] | None:
    """The entries named like a context file beneath `root` (the change index's folders
    skipped, hidden places left out); None past term_changes.MAX_FILES entries. Only
    names are looked at: no entry but a folder is stat'ed (a fifth of a stat walk's time)."""
    found: list[str] = []
    seen = 0
    stack = [(root, hidden is None or hidden.clear(os.path.realpath(root)))]
    while stack:
        folder, clear = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        seen += len(entries)
        if seen > term_changes.MAX_FILES:
            return None
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and entry.name not in term_changes.SKIP_DIRS:
                if hidden is None or clear or not hidden.hides(entry.path):
                    stack.append((entry.path, clear or hidden is None or hidden.clear(entry.path)))
            elif not is_dir and entry.name in PRECEDENCE and (
                    hidden is None or (clear and not entry.is_symlink()) or not hidden.hides(entry.path)):
                found.append(entry.path)  # a link is always asked: it may lead anywhere
    return found
