"""What the REPL does with a typed line before the model sees it.

- `!cmd` runs `cmd` in your shell (you, not the model; no approval asked) and shows its
  output; `!!cmd` does the same and keeps the output for your next message, which then
  starts with it (so the model sees what you saw). Nothing is sent by `!` alone.
- `\\!text` and `//text` send `!text` and `/text` as a message (the backslash or the
  first slash is dropped), for a message that starts with those characters.
- `@path` attaches the file's content to the message (frontend/mentions.py); the
  attachment is part of the stored user message, so a resume sends the same bytes.
  An image (`@shot.png`, or an image's path pasted into the line) goes with the message
  as a picture, scaled once to the provider's limits by the agent (`attach_image`).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from hermes_cli.slash.api import ReplLike
from hermes_cli.warm.terminal import run_on_terminal

SHOWN_CHARS = 20_000  # of a command's output on screen (its tail)
KEPT_CHARS = 20_000  # of a kept (`!!`) output in the next message (its tail)


def escaped(line: str) -> str | None:
    """The message a `\\!...` or `//...` line stands for ("!..." / "/..."), else None."""
    text = line.lstrip()
    if text.startswith(("\\!", "//")):
        return text[1:]
    return None


def _tail(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"[... {len(text) - limit:,} earlier characters cut]\n" + text[-limit:]


def run_shell(repl: ReplLike, line: str, kept: list[str]) -> None:
    """`!cmd` / `!!cmd` (see module docstring); `kept` collects outputs for the next message."""
    from rich.text import Text

    keep = line.startswith("!!")
    command = line[2:] if keep else line[1:]
    if not command.strip():
        repl.renderer.error("no command after !", "type !ls to run ls yourself, !!ls to also "
                            "send its output with your next message")
        return
    shell = os.environ.get("SHELL") or "/bin/sh"
    argv = [shell, "-c", command]
    done = run_on_terminal(argv) or subprocess.run(argv, stdin=subprocess.DEVNULL,
                                                   stdout=subprocess.PIPE,
                                                   stderr=subprocess.STDOUT, check=False)
    output = done.stdout.decode("utf-8", errors="replace")
    if output:
        repl.renderer.print(Text(_tail(output, SHOWN_CHARS).rstrip("\n")))
    status = f"exit code {done.returncode}"
    if keep:
        kept.append(f"I ran `{command.strip()}` ({status}):\n```\n"
                    f"{_tail(output, KEPT_CHARS).rstrip()}\n```")
        repl.renderer.print(Text(f"[{status}; the output goes with your next message]",
                                 style="dim"))
    else:
        repl.renderer.print(Text(f"[{status}; not sent to the model: !!cmd sends it]", style="dim"))


def message(repl: ReplLike, line: str, kept: list[str]) -> tuple[str, tuple[Any, ...]] | None:
    """The user message for `line` and its images: kept shell outputs first, mentioned
    files attached. None (with one error line) when a mention cannot be attached; nothing
    is lost: the kept outputs wait for the next message and the line is in the history (Up)."""
    from rich.text import Text

    from agent.errors import HermesError
    from frontend.mentions import attach

    try:
        found = attach(line, Path.cwd(), repl.agent.config.permissions)
        images = tuple(repl.agent.attach_image(data, name) for name, data in found.images)
    except HermesError as exc:  # MentionError, ImageError (no image, no vision)
        repl.renderer.error(exc.message, exc.hint)
        return None
    for prepared in images:
        repl.renderer.print(Text(f"attached image {prepared.note()}", style="dim"))
    for name, lines, size in found.files:
        repl.renderer.print(Text(f"attached @{name} ({lines:,} lines, {size:,} bytes)",
                                 style="dim"))
    for word in found.unknown:
        if "/" in word or "." in word.rstrip(".,;:!?"):
            repl.renderer.print(Text(f"@{word}: no such file here, sent as typed", style="dim"))
    text = found.text
    if kept:
        text = "\n\n".join([*kept, text])
        kept.clear()
    return text, tuple(p.image for p in images)
