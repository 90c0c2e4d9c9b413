"""Work in progress: the todo list as it changes, sub-agents' steps as they happen.
Text is shown as written (never markup)."""

from __future__ import annotations

from rich.text import Text

from agent.events import SubagentProgress, TodoChanged

MARKS = {"pending": ("[ ]", "dim"), "in_progress": ("[>]", "bold yellow"),
         "completed": ("[x]", "green"), "cancelled": ("[-]", "dim strike")}
GOAL_CHARS = 40
STEP_CHARS = 100


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def todo_text(event: TodoChanged) -> Text:
    """`todo 1/3 done` and one line per item, marked by status."""
    done = sum(status == "completed" for _, _, status in event.items)
    out = Text(f"  todo {done}/{len(event.items)} done\n", style="bold")
    for _id, content, status in event.items:
        mark, style = MARKS.get(status, ("[?]", ""))
        out.append(f"  {mark} {_cut(content, STEP_CHARS)}\n", style=style)
    out.rstrip()
    return out


def subagent_text(event: SubagentProgress) -> Text:
    """`  ↳ sub-agent 'goal…': step`."""
    style = "red" if event.what.startswith("failed") else "dim"
    return Text(f"  ↳ sub-agent '{_cut(event.goal, GOAL_CHARS)}': {_cut(event.what, STEP_CHARS)}",
                style=style)
