"""What an editor sends as a prompt, and the session commands it may run.

A prompt's text blocks are the message; a `resource_link` to a file becomes an `@path`
mention and an embedded text resource a `<file>` block - the REPL's `@path`
attachments (frontend/mentions.py), so the stored message reads the same. Image blocks
(and `@shot.png`) go with the message as pictures, scaled by the agent like the REPL's. A message
that is a shared session command (`/usage`, `/model`, ...; frontend/command_table.py) runs
`frontend.commands` instead of a turn; the list is offered as the session's
`available_commands`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from agent.images import ImageError
from agent.permissions.rules import Rules
from frontend import command_table as commands
from frontend import commands as shared
from frontend.mentions import attach

if TYPE_CHECKING:
    from acp import schema as s

    from hermes_acp.session import AcpSession

    # a prompt's content blocks, as session/prompt gives them
    Block = (s.TextContentBlock | s.ImageContentBlock | s.AudioContentBlock
             | s.ResourceContentBlock | s.EmbeddedResourceContentBlock)
    # the session updates history.py's fields become
    Replayed = s.UserMessageChunk | s.AgentMessageChunk | s.AgentThoughtChunk | s.ToolCallStart

LISTED = ("acp", "cli", "oneshot")  # the sessions session/list offers (never a tenant's)


def _path(uri: str) -> str | None:
    parts = urlsplit(uri)
    return unquote(parts.path) if parts.scheme == "file" and parts.path else None


def reads_files(blocks: Sequence[Block]) -> bool:
    """Whether making the message reads files (an `@path` or a link to one) or images."""
    return any(b.type in ("resource_link", "image") or (b.type == "text" and "@" in b.text)
               for b in blocks)


def message_of(blocks: Sequence[Block], cwd: Path,
               rules: Rules | None = None) -> tuple[str, list[tuple[str, bytes]]]:
    """The user message of a prompt and its pictures as (name, bytes): image blocks and
    `@shot.png` mentions (raises MentionError for a file it cannot attach, ImageError for
    an image block that is not base64; a file a permission rule denies reading is one)."""
    words: list[str] = []
    embedded: list[str] = []
    for block in blocks:
        if block.type == "text":
            words.append(block.text)
        elif block.type == "resource_link":
            path = _path(block.uri)
            words.append(f'@"{path}"' if path and " " in path else f"@{path}" if path
                         else block.uri)
        elif block.type == "resource":
            resource = block.resource
            content = getattr(resource, "text", None)  # a text resource (a blob has none)
            if content is not None:
                name = _path(resource.uri) or resource.uri
                body = content if content.endswith("\n") else content + "\n"
                embedded.append(f'<file path="{name}">\n{body}</file>')
    found = attach(" ".join(w for w in words if w).strip(), cwd, rules)
    text = "\n\n".join([found.text, *embedded]) if embedded else found.text
    return text, [*found.images, *_pictures(blocks)]


def _pictures(blocks: Sequence[Block]) -> list[tuple[str, bytes]]:
    """The image blocks' bytes, named by their URI or their place ("image-2.png")."""
    import base64
    import binascii

    out = []
    for index, block in enumerate(blocks, 1):
        if block.type != "image":
            continue
        try:
            data = base64.b64decode(block.data, validate=True)
        except (binascii.Error, ValueError):
            raise ImageError(f"image block {index} is not base64 data",
                             "the editor sent a broken image; attach the file instead") from None
        name = _path(block.uri) if block.uri else None
        suffix = block.mime_type.rpartition("/")[2] or "img"
        out.append((Path(name).name if name else f"image-{index}.{suffix}", data))
    return out


def offered() -> list[commands.CommandDef]:
    return [c for c in commands.COMMANDS if c.name in shared.SHARED]


def available_commands() -> s.AvailableCommandsUpdate:
    from acp import schema as s  # lazy: the SDK

    return s.AvailableCommandsUpdate(session_update="available_commands_update", available_commands=[
        s.AvailableCommand(name=c.name, description=c.help + (f" ({c.cache_effect})" if c.cache_effect else ""),
                           input=s.AvailableCommandInput(s.UnstructuredCommandInput(hint=c.args))
                           if c.args else None)
        for c in offered()])


async def command(session: AcpSession, text: str, personalities: dict[str, str]) -> shared.Reply | None:
    """Run `text` as a session command when it is one (None: it is a message)."""
    parsed = commands.parse(text)
    if parsed is None:
        return None
    found = commands.lookup(parsed[0])
    if found is None:
        return None  # `/usr/bin is slow`: a message, not a command
    if found.name not in shared.SHARED:
        names = ", ".join(f"/{c.name}" for c in offered())
        return shared.Reply(f"/{found.name} is a REPL command; here: {names} (plan mode: the "
                            "session's mode selector)", "error")
    handle = shared.Handle(session.agent, personalities)
    try:
        return await asyncio.to_thread(shared.run, handle, found.name, parsed[1])
    except ValueError as exc:  # e.g. /usage of a session without a store
        return shared.Reply(str(exc), "error")


def update_model(fields: dict[str, Any]) -> Replayed:
    """A session update from its fields (history.py builds them SDK-free)."""
    from acp import schema as s  # lazy: the SDK

    kinds: dict[str, type[Replayed]] = {"user_message_chunk": s.UserMessageChunk, "agent_message_chunk": s.AgentMessageChunk,
             "agent_thought_chunk": s.AgentThoughtChunk, "tool_call": s.ToolCallStart}
    return kinds[fields["session_update"]].model_validate(fields)

