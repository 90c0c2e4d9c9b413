"""Gemini's figures as a person reads them: the context a turn that created
the explicit cache fills is that call's prompt, not the prompt plus the creation; the
REPL's line at exit is the final bill (storage settled first); a session of N requests
counts N calls (a cache's creation or storage is a charge, not a call). Wire tier: the
real google-genai SDK against the fake Gemini API, whose bill is the truth."""

from __future__ import annotations

import io
import math
import re

import pytest
from rich.console import Console

from frontend.setup import Flags
from frontend.usage_report import build_report
from hermes_cli.render.renderer import Renderer
from hermes_cli.repl.main import Repl
from memory.store import SessionStore
from tests.fakes import FakeProvider
from tests.fakes.gemini_api import bill_total
from tests.fakes.gemini_session import agent, creations, generations, project
from tests.helpers import run


@pytest.fixture
def fake():
    with FakeProvider() as server:
        yield server


def test_the_context_of_a_turn_that_created_the_cache_is_its_prompt(fake, tmp_path):
    home, cwd = project(tmp_path)
    session = agent(fake, home, cwd)
    run(session, "hello")
    assert len(creations(fake)) == 1  # this turn made the explicit cache
    prompt = generations(fake)[0].prompt_tokens  # what the window holds
    assert session.session.calls.context_tokens() == prompt
    session.close()


def test_a_session_of_five_requests_counts_five_calls(fake, tmp_path):
    home, cwd = project(tmp_path)
    session = agent(fake, home, cwd)
    for turn in range(5):
        run(session, f"question {turn}")
        fake.clock.advance(60)
    session.close()  # the cache is deleted: its storage is settled on a row of its own
    store = SessionStore(home / "state.db")
    assert len(generations(fake)) == 5
    assert build_report(store, session.session_id).session.calls == 5
    listed = next(r for r in store.list_sessions() if r["id"] == session.session_id)
    assert listed["api_calls"] == 5
    shown = math.fsum(r["cost_usd"] for r in store.usage_rows(session.session_id))
    assert math.isclose(shown, bill_total(fake), rel_tol=0.01), (shown, bill_total(fake))


def test_the_line_at_exit_is_the_final_bill(fake, tmp_path):
    home, cwd = project(tmp_path)
    session = agent(fake, home, cwd)
    for turn in range(3):
        run(session, f"question {turn}")
        fake.clock.advance(60)
    out = io.StringIO()
    repl = Repl(Flags())
    repl.console = Console(file=out, width=200, highlight=False)
    repl.renderer = Renderer(repl.console)
    repl.set_agent(session)
    repl.finish()  # what the REPL does at /exit, Ctrl-D or a double Ctrl-C
    said = re.search(r"cost \$([\d.]+)", out.getvalue())
    assert said, out.getvalue()
    assert math.isclose(float(said.group(1)), bill_total(fake), rel_tol=0.01), (
        said.group(0), bill_total(fake))


def test_a_one_shot_chain_resuming_every_few_seconds_reads_an_explicit_cache(fake, tmp_path):
    """`hermes -q ... --resume ID` run again and again: each run a new process (here a new
    agent on the stored session), whose pause model is the session's stored gaps."""
    home, cwd = project(tmp_path)
    session_id = None
    for turn in range(4):
        one_shot = agent(fake, home, cwd, source="oneshot", session_id=session_id)
        run(one_shot, f"question {turn}")
        session_id = one_shot.session_id
        one_shot.close()
        fake.clock.advance(5)
    calls = generations(fake)
    assert len(calls) == 4
    assert len(creations(fake)) == 1  # made once, kept between the runs
    assert all(r.body.get("cachedContent") for r in calls[2:]), [
        r.body.get("cachedContent") for r in calls]
    store = SessionStore(home / "state.db")
    shown = math.fsum(r["cost_usd"] for r in store.usage_rows(session_id))
    fake.clock.advance(7200)  # a cache kept after the last run is billed to its expiry
    assert math.isclose(shown, bill_total(fake), rel_tol=0.01), (shown, bill_total(fake))
