"""/cron: the jobs of this session's user, listed and removed (paused, resumed) from the
REPL and from chats - one implementation (frontend.commands.SHARED). A chat sees its own
jobs only; the operator (the REPL) sees and changes every job."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.errors import ConfigError
from frontend.cron import control, listing
from memory.cron import CronStore

if TYPE_CHECKING:
    from agent.agent import AIAgent

USAGE = "/cron lists the scheduled jobs; /cron remove|pause|resume NAME changes one"


def cron(agent: AIAgent, arg: str) -> tuple[str, str]:
    """The reply's (text, level) - frontend.commands makes it a Reply."""
    store = agent.store
    if store is None:
        return "scheduled jobs need the session store", "error"
    owner = agent.config.owner
    mine = CronStore(store.handle)
    verb, _, ident = arg.strip().partition(" ")
    if not verb:
        return listing.render(mine, mine.jobs(owner, every_owner=owner is None)), "info"
    actions = {"remove": control.remove, "pause": control.pause, "resume": control.resume}
    if verb not in actions or not ident.strip():
        return USAGE, "error"
    try:
        job = control.find(mine, ident, owner, any_owner=owner is None)
    except ConfigError as exc:
        return f"{exc.message}; {exc.hint}", "error"
    return actions[verb](mine, job), "info"
