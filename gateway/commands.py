"""Slash commands sent as message text to the gateway (`gateway=True` in the one
command table): /new, /model, /personality, /usage. Each touches only its own session:
/new evicts that session's agent and starts a new stored session; /model and
/personality change the session's route, so its signature changes and the agent is
rebuilt over the same stored session (an announced cache break). Answered with a short
assistant message; no model call is made.
"""

from __future__ import annotations

from dataclasses import replace

from agent import commands
from agent.usage import ZERO
from agent.usage_report import build_report
from gateway.routes import Route
from gateway.sessions import Gateway, TurnResult, session_key
from gateway.wire import valid_model

AVAILABLE = tuple(c for c in commands.COMMANDS if c.gateway)


def is_command(text: str) -> bool:
    """True when the message text is a slash command (// escapes a leading slash)."""
    return commands.parse(text) is not None


def handle_command(gateway: Gateway, route: Route, text: str) -> TurnResult:
    """Run the command in `text` for the session of `route`; never calls the model."""
    parsed = commands.parse(text)
    assert parsed is not None
    name, arg = parsed
    command = commands.lookup(name)
    if command is None or not command.gateway:
        return _reply(gateway, route, _unavailable(name, command is None))
    handler = {"new": _new, "model": _model, "personality": _personality, "usage": _usage}
    return handler[command.name](gateway, route, arg)


def _reply(gateway: Gateway, route: Route, answer: str, session_id: str | None = None,
           model: str | None = None) -> TurnResult:
    model = model or route.model or gateway.base.provider.model
    return TurnResult(session_id or route.session_id or "", model, answer, ZERO, "command",
                      command=True)


def _unavailable(name: str, unknown: bool) -> str:
    names = ", ".join(f"/{c.name}" for c in AVAILABLE)
    if unknown:
        close = commands.suggest(name)
        hint = f" Did you mean {', '.join('/' + c for c in close)}?" if close else ""
        return f"Unknown command /{name}.{hint} Over the gateway: {names}."
    return f"/{name} is not available over the gateway. Available: {names}."


def _new(gateway: Gateway, route: Route, _arg: str) -> TurnResult:
    key = session_key(route.owner, route.name)
    gateway.cache.evict(key)
    agent = gateway.cache.get(key, gateway.config_for(route), session_id=None)
    gateway.remember(route, agent)
    previous = f" (previous: {route.session_id})" if route.session_id else ""
    return _reply(gateway, route, f"New session {agent.session_id}{previous}. Its prompt is "
                  "written to the cache on the first call.", agent.session_id, agent.model)


def _model(gateway: Gateway, route: Route, arg: str) -> TurnResult:
    current = route.model or gateway.base.provider.model
    if not arg:
        return _reply(gateway, route, f"This session uses {current}. Switch with /model NAME "
                      "(the cache is per model: the next call re-sends everything).")
    if arg == current:
        return _reply(gateway, route, f"This session already uses {current}.")
    if not valid_model(arg):
        return _reply(gateway, route, f"'{arg[:80]}' is not a model name (letters, digits and "
                      "._:/@+-[] only). This session still uses " + current + ".")
    tokens, cost = gateway.agent_for(route).rebuild_estimate(arg)
    agent = gateway.agent_for(replace(route, model=arg))
    money = "" if cost is None else f", est. ${cost:.4f}"
    return _reply(gateway, route, (
        f"Model {current} -> {arg} for this session. The cache is per model: the next call "
        f"re-sends ~{tokens:,} tokens uncached{money}. A request whose `model` names another "
        "model switches again; send model \"hermes\" to keep the session's."),
        agent.session_id, agent.model)


def _personality(gateway: Gateway, route: Route, arg: str) -> TurnResult:
    names = ", ".join(sorted(gateway.personalities)) or "none configured"
    current = route.personality or gateway.base.personality or "none"
    if not arg:
        return _reply(gateway, route, f"Personality: {current}. Available: {names}. "
                      "Switch with /personality NAME|none (rebuilds the system prompt).")
    if arg != "none" and arg not in gateway.personalities:
        return _reply(gateway, route, f"Unknown personality '{arg}'. Available: {names}.")
    if arg == current:
        return _reply(gateway, route, f"The personality is already {current}.")
    tokens, cost = gateway.agent_for(route).rebuild_estimate()
    agent = gateway.agent_for(replace(route, personality=arg))
    money = "" if cost is None else f", est. ${cost:.4f}"
    return _reply(gateway, route, (
        f"Personality -> {arg}. The system prompt was rebuilt: the next call re-sends "
        f"~{tokens:,} tokens uncached{money}."), agent.session_id, agent.model)


def _usage(gateway: Gateway, route: Route, _arg: str) -> TurnResult:
    if not route.session_id:
        return _reply(gateway, route, "No calls yet in this session.")
    total = build_report(gateway.store, route.session_id, prices=gateway.base.prices,
                         context_windows=gateway.base.context_windows).session
    hit = "unknown" if total.hit_rate is None else f"{total.hit_rate:.1%}"
    cost = "unknown" if total.cost is None else f"${total.cost:.4f}"
    read = "unknown" if total.cache_read is None else f"{total.cache_read:,}"
    return _reply(gateway, route, (
        f"Session {route.session_id}: {total.calls} calls, cache hit rate {hit}; prompt "
        f"{total.prompt_tokens:,} tokens (read {read}, uncached {total.uncached:,}), output "
        f"{total.output:,}; cost {cost}."))
