"""A hermes session on Gemini against the fake Gemini API (wire-tier tests): a project
whose context file is past the explicit-cache floor, an AIAgent on it, and the requests
the fake recorded (generations, cache creations)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

MODEL = "gemini-3.5-flash"


def project(tmp_path: Path, repeats: int = 2400) -> tuple[Path, Path]:
    """(home, cwd) of a project whose AGENTS.md makes a prefix past the 4,096 floor (its
    rule said `repeats` times)."""
    home, cwd = tmp_path / "home", tmp_path / "proj"
    home.mkdir(exist_ok=True)
    cwd.mkdir(exist_ok=True)
    (cwd / "AGENTS.md").write_text("Project rules: " + "name things for what they do. " * repeats)
    (cwd / "notes.txt").write_text("the answer is 42\n")
    return home, cwd


def agent(fake: Any, home: Path, cwd: Path, **config: Any) -> Any:
    """An AIAgent on `MODEL` through the real SDK against `fake` (its clock the agent's)."""
    from agent.agent import AIAgent
    from agent.config import AgentConfig
    from agent.providers.base import ProviderSettings
    from memory.store import SessionStore

    settings = ProviderSettings("gemini", config.pop("model", MODEL), "test-key",
                                fake.gemini_base_url)
    session_id = config.pop("session_id", None)
    return AIAgent(AgentConfig(provider=settings, home=home, cwd=cwd, **config),
                   SessionStore(home / "state.db"), clock=fake.clock.now, session_id=session_id)


def generations(fake: Any) -> list[Any]:
    """The model calls the fake answered or refused."""
    return [r for r in fake.requests_for("gemini") if "generateContent" in r.path.lower()
            or "streamgeneratecontent" in r.path.lower()]


def creations(fake: Any) -> list[Any]:
    """The `cachedContents` creations the fake accepted."""
    return [r for r in fake.requests_for("gemini")
            if r.path.endswith("/cachedContents") and r.status == 200 and r.cache_write]
