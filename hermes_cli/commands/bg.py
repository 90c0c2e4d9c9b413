"""Background runs: `hermes -q --bg PROMPT` and the REPL's `/bg PROMPT` start a detached
`hermes -q` (its own process group and session, stdin closed, output to
HERMES_HOME/background/ID.log) and return once it has a session id; the run itself is an
ordinary one-shot run - the same sandbox, approvals (nobody can answer a question, so a
flagged action is refused, and the refusal is in its transcript), budgets and rate
limits. Its state is in the store (frontend/autonomy/background.py): `hermes ps`,
`hermes logs ID`, `hermes --resume ID`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.agent import AIAgent
    from frontend.setup import Flags

ENV_RUN = "HERMES_BG_RUN"  # the session id a detached run was started for

_CURRENT: list[tuple[Any, str]] = []  # (store, session id) of this process' background run

# Function-level imports below: the store and the agent load when a run starts.


def forwarded(flags: Flags, images: list[str]) -> list[str]:
    """The flags a run needs beyond its stored session (model, provider, tools, prompt and
    reasoning are stored with it): limits, the sandbox and approvals policy, images."""
    args = ["--yolo"] * flags.yolo + ["--no-sandbox"] * flags.no_sandbox
    for flag, value in (("--max-usd", flags.max_usd), ("--max-turn-tokens", flags.max_turn_tokens),
                        ("--max-turns", flags.max_turns)):
        if value is not None:
            args += [flag, str(value)]
    for image in images:
        args += ["--image", str(Path(image).resolve())]
    return args


def detach(query: str, flags: Flags, *, resume: str | None, cont: bool,
           images: list[str]) -> int:
    """`hermes -q PROMPT --bg`: make (or resume) the session here, run its turn in a
    detached process, print the session id at once."""
    from frontend.autonomy.background import mark_starting
    from frontend.factory import build_agent
    from frontend.session_claim import release_session

    agent = build_agent(flags, resume=resume, cont=cont, source="oneshot")
    try:
        assert agent.store is not None  # the CLI's sessions are stored
        session_id = agent.session_id
        mark_starting(agent.store, session_id)
    finally:
        agent.close()  # not discarded when empty: the run continues it
        release_session()  # the run takes the session's lock
    start(["-q", query, "--resume", session_id, *forwarded(flags, images)], session_id)
    sys.stdout.write(session_id + "\n")
    sys.stderr.write(f"hermes: background run {session_id} started; `hermes ps` lists runs, "
                     f"`hermes logs {session_id} -f` follows it\n")
    return 0


def start(args: list[str], session_id: str) -> None:
    """Start `hermes ARGS` detached for `session_id` (its output: background/ID.log)."""
    from frontend.config.settings import hermes_home
    from memory.private import private_file

    folder = hermes_home() / "background"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    log = folder / f"{session_id}.log"
    private_file(log)
    env = {**os.environ, ENV_RUN: session_id, "HERMES_WARM": "0"}
    with open(log, "ab") as out:
        subprocess.Popen([sys.executable, "-m", "hermes_cli", *args], stdin=subprocess.DEVNULL,
                         stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)


def announce(agent: AIAgent) -> None:
    """In a detached run, once its session is open: it runs (the lock is held now)."""
    if os.environ.pop(ENV_RUN, None) != agent.session_id or agent.store is None:
        return
    _CURRENT.append((agent.store, agent.session_id))


def finished(code: int) -> int:
    """In a detached run, at its end: it ended (done or failed: its transcript says);
    returns `code`."""
    if _CURRENT:
        from frontend.autonomy.background import mark_ended

        store, session_id = _CURRENT.pop()
        mark_ended(store, session_id)
    return code


def start_fork(agent: AIAgent, prompt: str) -> str:
    """/bg PROMPT: a copy of the REPL's session answers PROMPT in the background."""
    from frontend.autonomy.background import fork

    fork_id = fork(agent)
    start(["-q", prompt, "--resume", fork_id], fork_id)
    return fork_id
