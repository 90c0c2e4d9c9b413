"""Slash commands sent as message text to the gateway (`gateway=True` in the one
command table). The commands themselves are the shared ones (frontend.commands), run on
the session's cached agent IN PLACE - /model and /personality do not rebuild the agent,
so the session's diagnostics chain goes on and the deliberate miss is named as such.
This module only decides which commands the gateway offers and words the refusals; a
command's change is the session's own (agent/sessions/choices.py), so nothing is re-synced.
"""

from __future__ import annotations

from frontend import command_table as commands
from frontend import commands as shared

AVAILABLE = tuple(c for c in commands.COMMANDS if c.gateway)
MODEL_NOTE = (" A request whose `model` names another model switches again; send model "
              "\"hermes\" to keep the session's.")


def is_command(text: str) -> bool:
    """True when the message text is a slash command (// escapes a leading slash)."""
    return commands.parse(text) is not None


def free(text: str) -> bool:
    """True when the message is a built-in command that never calls the model (no spend
    check); a custom command (a message) or an unknown name is not."""
    parsed = commands.parse(text)
    command = commands.lookup(parsed[0]) if parsed is not None else None
    return command is not None and not command.calls_model


def answer(handle: shared.Handle, text: str, *, api: bool = False) -> shared.Reply:
    """Run the command in `text` on the handle's agent; never calls the model. `api`: an
    HTTP API client's command (a chat's has no request `model` to speak of)."""
    parsed = commands.parse(text)
    assert parsed is not None
    name, arg = parsed
    command = commands.lookup(name)
    expanded = shared.custom(handle, name, arg) if command is None else None
    if expanded is not None:  # a custom command: its message runs as the turn
        return expanded
    if command is None or not command.gateway:
        return shared.Reply(_unavailable(name, command is None), "error")
    reply = shared.run(handle, command.name, arg)
    assert reply is not None, f"/{command.name} is marked gateway=True but has no shared handler"
    if reply.changed == "model" and api:
        return shared.Reply(reply.text + MODEL_NOTE, reply.level, reply.changed, reply.data)
    return reply


def _unavailable(name: str, unknown: bool) -> str:
    names = ", ".join(f"/{c.name}" for c in AVAILABLE)
    if unknown:
        close = commands.suggest(name)
        hint = f" Did you mean {', '.join('/' + c for c in close)}?" if close else ""
        return f"Unknown command /{name}.{hint} Over the gateway: {names}."
    return f"/{name} is not available over the gateway. Available: {names}."
