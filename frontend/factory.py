"""One agent factory for every front end: settings -> config -> store -> AIAgent.

`make_agent` is the one place an AIAgent is built for a front end (the REPL, one-shot,
the gateway's sessions and its chats): its MCP tools, a lent provider adapter, resume or
start. Sub-agents are the agent's own (`AIAgent.spawn_child`: the parent's choices and
SDK client). Start-up warnings (config problems, broken MEMORY.md/USER.md, skills)
become the agent's `startup_notices`, so each front end shows them its own way and none
skips them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config import AgentConfig
from agent.errors import ConfigError
from agent.events import Notice
from agent.prompts.context import context_problems
from frontend.config.settings import Settings, load_yaml
from frontend.context_review import AskContext, review, review_skills
from frontend.project import Ask, decide
from frontend.session_claim import claim_session
from frontend.setup import Flags, agent_config, load_settings, open_store
from memory.errors import SessionNotFound
from memory.notes import Notes

if TYPE_CHECKING:  # the store (sqlite-utils) and the agent load after the first prompt
    from agent.agent import AIAgent
    from memory.store import SessionStore


@dataclass
class Prepared:
    """Everything decided before the agent is built (cheap: no prompt, no tools)."""

    settings: Settings
    config: AgentConfig
    warnings: list[str]
    store: SessionStore | None = None
    session_id: str | None = None
    preview: bool = False
    reasoning_flag: bool = False  # --reasoning given: it wins over a resumed session's choice


def startup_warnings(settings: Settings, cwd: Path) -> list[str]:
    """Config problems, broken notes files and refused context files, said once at start."""
    return (list(settings.warnings) + Notes(settings.home).problems()
            + context_problems(settings.home, cwd))


def prepare(flags: Flags, *, resume: str | None = None, cont: bool = False,  # noqa: PLR0913
            preview: bool = False, source: str = "cli", ask_trust: Ask | None = None,
            ask_context: AskContext | None = None) -> Prepared:
    """Settings, config and (for a resume) the store and the session id; raises
    user-facing ConfigErrors. `preview`: no store (nothing is saved). `ask_trust`: asks
    the user whether to trust the project's .hermes/ settings (the REPL; None: never);
    `ask_context` about a context file hermes wrote (frontend/context_review.py)."""
    settings = load_settings()
    review(settings.home, current_dir(), ask_context)  # before the notices say what is left out
    review_skills(settings.home, ask_context)
    warnings = startup_warnings(settings, current_dir())
    project = decide(settings.home, current_dir(), ask_trust, warnings)
    if preview:
        config = agent_config(settings, flags, current_dir(), source, warnings, project)
        check_skills(settings.home, config.skills)
        return Prepared(settings, config, warnings, preview=True)
    store = session_id = None
    if resume is not None or cont:
        store = open_store(settings)
        session_id = resolve_resume(store, resume, cont, source, any_kind=flags.continue_any)
        flags = session_flags(flags, store.get_session(session_id) or {})
    config = agent_config(settings, flags, current_dir(), source, warnings, project)
    check_skills(settings.home, config.skills)
    return Prepared(settings, config, warnings, store, session_id,
                    reasoning_flag=flags.reasoning is not None)


def build(prepared: Prepared, approve=None) -> AIAgent:
    """The agent for `prepared` (opens the store when not open yet)."""
    store = None
    if not prepared.preview:
        store = prepared.store or open_store(prepared.settings)
        # one process per session: a resumed one is claimed before its history is read
        claim_session(store, prepared.session_id)
    agent = make_agent(prepared.config, store, session_id=prepared.session_id, approve=approve,
                       reader=mcp_reader(prepared.settings.home))
    if store is not None:
        claim_session(store, agent.session_id)  # a new session: its fresh id
    if prepared.reasoning_flag and agent.caller.reasoning != prepared.config.reasoning:
        from frontend.reasoning_switch import set_reasoning  # lazy, as above

        agent.startup_notices.append(set_reasoning(agent.caller, agent.sessions,
                                                   prepared.config.reasoning))
    agent.startup_notices[:0] = [Notice(w, "warning") for w in prepared.warnings]
    return agent


def make_agent(config: AgentConfig, store: SessionStore | None, *,  # noqa: PLR0913
               session_id: str | None = None, approve=None, provider=None, reader=None,
               missing_ok: bool = False, lend=None) -> AIAgent:
    """The agent of a new session (`session_id` None) or of a stored one, which keeps its
    stored choices; `lend`: settings -> a lent adapter (the gateway's shared pools, asked
    for the session's own wire API), `provider`: an adapter to use as is; `reader`:
    config.yaml's MCP servers as they are now; `missing_ok`: a stored session deleted
    meanwhile (`hermes sessions delete`) starts a new one instead of failing."""
    from agent.agent import AIAgent  # lazy for start-up speed: the REPL draws its prompt first
    from agent.mcp.frozen import for_config  # lazy, as above
    from agent.otel import install_from_env  # lazy, as above; imports the SDK only if asked

    install_from_env()  # OTLP traces when the OTEL_* variables ask (once per process)
    mcp = for_config(config, reader)  # only the servers offered to this source and owner
    try:
        return AIAgent(config, store, session_id=session_id, approve=approve,
                       provider=provider, lend=lend, mcp=mcp)
    except SessionNotFound:
        if not missing_ok or session_id is None:
            raise
        return AIAgent(config, store, approve=approve, provider=provider, lend=lend, mcp=mcp)


def mcp_reader(home: Path):
    """config.yaml's `mcp_servers:` as it is now (re-parsed only when the file changed),
    so a session can announce an edit of its servers."""
    from agent.mcp.config import parse_servers

    seen: dict[str, object] = {}

    def read():
        path = home / "config.yaml"
        try:
            stamp = path.stat().st_mtime_ns
        except OSError:
            stamp = None
        if seen.get("stamp") != stamp or "servers" not in seen:
            raw = load_yaml(path) if stamp is not None else {}
            box = raw.get("sandbox") if isinstance(raw.get("sandbox"), dict) else {}
            allow = [v for key in ("env_allow", "pass_env") for v in (box.get(key) or [])
                     if isinstance(v, str)] if isinstance(box, dict) else []
            seen["servers"] = parse_servers(raw.get("mcp_servers"),
                                            env_allow=tuple(v.strip() for v in allow))
            seen["stamp"] = stamp
        return seen["servers"]

    return read


def build_agent(flags: Flags, *, resume: str | None, cont: bool, approve=None,
                preview: bool = False, source: str = "cli") -> AIAgent:
    """prepare + build in one step."""
    return build(prepare(flags, resume=resume, cont=cont, preview=preview, source=source),
                 approve)


# What `-c` continues, per front end: the REPL its own sessions; one-shot its own or
# a REPL conversation (a follow-up question on it). Both only of the current directory.
CONTINUES = {"cli": ("cli",), "oneshot": ("oneshot", "cli")}


def resolve_resume(store: SessionStore, resume: str | None, cont: bool,
                   source: str = "cli", *, any_kind: bool = False) -> str | None:
    """The session id to resume (None: start a new one). `cont`: the latest session of
    this front end started in the current directory; `any_kind`: the latest of all."""
    if resume is not None:
        if not resume.strip():
            raise ConfigError("--resume needs a session id, got an empty one",
                              "`hermes sessions list` shows the ids; or use -c for the latest")
        return store.resolve_session_id(resume)
    if cont and any_kind:
        row = store.latest_session()
        if row is None:
            raise ConfigError("no session to continue yet", "start one with `hermes` or `hermes -q`")
        return row["id"]
    if cont:
        here = str(current_dir())
        row = store.latest_session(sources=CONTINUES.get(source, (source,)), cwd=here)
        if row is None:
            kind = "REPL session" if source == "cli" else "session"
            raise ConfigError(f"no {kind} of this directory ({here}) to continue",
                              "start one with `hermes` here; `hermes --continue-any` continues "
                              "the latest session of any kind and directory, `hermes sessions "
                              "list` shows them all (resume one with --resume ID)")
        return row["id"]
    return None


def session_flags(flags: Flags, row: dict[str, Any]) -> Flags:
    """A resumed session keeps its own provider and model unless a flag names another
    (the stored prompt names the model; a silent switch would rebuild it and miss)."""
    if flags.provider is None and flags.model is None and row.get("provider"):
        return replace(flags, provider=row["provider"], model=row.get("model"))
    if flags.model is None and flags.provider in (None, row.get("provider")):
        return replace(flags, model=row.get("model"))
    return flags


def current_dir() -> Path:
    """The working directory, or a clear error when it was deleted under us."""
    try:
        return Path.cwd()
    except FileNotFoundError:
        raise ConfigError("the current directory no longer exists",
                          "cd into an existing directory and run hermes again") from None


def check_skills(home: Path, names: tuple[str, ...]) -> None:
    """A skill asked for by name that exists but is broken: say why, not "unknown"."""
    if not names:
        return
    from memory.threats import scan  # lazy: only when skills are named (start-up speed)
    from skills.loader import discover

    catalog = discover(home, scan=scan)
    for name in names:
        why = catalog.problem(name)
        if why:
            raise ConfigError(f"skill '{name}' is broken, so it cannot be preloaded: {why}",
                              "fix that SKILL.md (`hermes skills list` shows every problem), "
                              "or leave the skill out")
