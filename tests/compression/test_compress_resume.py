"""After `--resume`/`-c` the stored prompt is what the last request sent, so the first
/compress reads the warm cache, and a first call whose entry outlived its lifetime is
diagnosed "expired" (not "no cache misses"). Against the fake Anthropic API (wire).

The resumed session knows its last call from its usage row's `created` (wall clock):
the agents here run on the wall clock plus the fake's, so a pause on the fake clock is
a pause for both the fake's cache and the agent."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent.agent import AIAgent
from agent.config import AgentConfig
from agent.events import ErrorEvent
from agent.providers.base import ProviderSettings
from frontend.usage_report import build_report
from memory.store import SessionStore
from tests.fakes import Reply
from tests.helpers import is_summary_call, project, run

pytestmark = pytest.mark.wire  # opens a socket

MODEL = "claude-sonnet-5"
ANSWER = "Noted: the parser keeps its state per stream and retries each block. " * 12


def _agent(fake, home: Path, cwd: Path, resume: str | None = None) -> AIAgent:
    start = time.time()
    settings = ProviderSettings("anthropic", MODEL, "k", fake.anthropic_base_url)
    config = AgentConfig(provider=settings, home=home, cwd=cwd, toolsets=("file",),
                         context_windows={MODEL: 200_000})
    return AIAgent(config, SessionStore(home / "state.db"),
                   clock=lambda: start + fake.clock.now(),
                   **({"session_id": resume} if resume else {}))


def _session(fake, home: Path, cwd: Path) -> str:
    first = _agent(fake, home, cwd)
    for n in range(8):
        fake.script(Reply(text=f"{n}: {ANSWER}"))
        run(first, f"request {n}: please look at part {n} of the parser")
    first.close()
    return first.session_id


def test_compress_after_resume_reads_the_warm_cache(fake_provider, hermes_home, tmp_path):
    cwd = project(tmp_path, hermes_home)
    sid = _session(fake_provider, hermes_home, cwd)
    last = fake_provider.last
    resumed = _agent(fake_provider, hermes_home, cwd, resume=sid)
    fake_provider.script(Reply(text="## Goal\nReview the parser.\n## Done\nParts 0-7."))
    errors = [e for e in resumed.compress() if isinstance(e, ErrorEvent)]
    assert not errors, errors
    summary = fake_provider.last
    assert is_summary_call(summary.body) and "tools" in summary.body  # the cached form
    assert summary.status == 200 and summary.cache_read >= last.cache_read > 0
    assert summary.cache_write == 0  # it read what the last request wrote, wrote nothing


def test_first_call_after_an_expired_resume_names_the_miss(fake_provider, hermes_home,
                                                           tmp_path):
    cwd = project(tmp_path, hermes_home)
    sid = _session(fake_provider, hermes_home, cwd)
    fake_provider.clock.advance(400.0)  # past the 5-minute entry, for the fake and us
    resumed = _agent(fake_provider, hermes_home, cwd, resume=sid)
    fake_provider.script(Reply(text="welcome back"))
    run(resumed, "where were we?")
    assert fake_provider.last.cache_read < fake_provider.requests[-2].prompt_tokens // 2
    (miss,) = [m for m in build_report(resumed.store, sid).misses]
    assert miss.cause == "expired" and "resumed" in miss.detail, miss
