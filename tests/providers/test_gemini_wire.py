"""Gemini through the real google-genai SDK against the fake Gemini API (wire tier):
the explicit cache's reads and bill, a thinking tool loop across turns and a resume
(signatures verbatim in the recorded bytes), one cache per prefix across sessions."""

from __future__ import annotations

import json
import math

import pytest

from agent.cache.pauses import session_pauses
from agent.messages import Reasoning
from agent.providers.base import ProviderSettings, Services
from frontend.usage_report import build_report
from memory.store import SessionStore
from tests.fakes import FakeProvider, Reply
from tests.fakes import ToolCall as FakeCall
from tests.fakes.gemini_api import bill_total
from tests.fakes.gemini_rules import PRICES
from tests.fakes.gemini_session import MODEL, agent, creations, generations, project
from tests.helpers import run


@pytest.fixture
def fake():
    with FakeProvider() as server:
        yield server


def test_a_long_context_session_reads_its_prefix_and_costs_what_the_fake_bills(fake, tmp_path):
    home, cwd = project(tmp_path)
    session = agent(fake, home, cwd)
    for turn in range(6):
        run(session, f"question {turn}")
        fake.clock.advance(90)  # a pause: the cache is stored meanwhile
    report = build_report(session.store, session.session_id)
    session.close()
    shown = sum(r["cost_usd"] for r in SessionStore(home / "state.db").usage_rows(session.session_id))

    calls = generations(fake)
    assert len(calls) == 6 and len(creations(fake)) == 1
    assert all(r.body.get("cachedContent") for r in calls)
    # from turn 2: what was read vs what a perfect cache could (the previous prompt)
    read = sum(r.cache_read for r in calls[1:])
    perfect = sum(prev.prompt_tokens for prev in calls[:-1])
    assert read >= 0.9 * perfect, (read, perfect)
    inp, _read, out, _store = PRICES[MODEL]
    uncached = sum(r.prompt_tokens * inp + (r.usage["candidatesTokenCount"]
                                            + r.usage.get("thoughtsTokenCount", 0)) * out
                   for r in calls) / 1e6
    bill = bill_total(fake)
    lines = fake.gemini.bill(fake.requests, fake.clock.now())
    assert lines["storage"] > 0 and lines["creation"] > 0
    assert bill <= 0.5 * uncached, (bill, uncached)
    assert math.isclose(shown, bill, rel_tol=0.01), (shown, bill)
    assert report.session.stored_token_hours > 0 and report.session.storage_cost is not None
    assert not report.misses  # reading the resource (the prefix only) is the whole read
    assert not fake.gemini.caches["cachedContents/fake1"].alive(fake.clock.now())  # deleted


def _signatures(raw: bytes) -> list[str]:
    found: list[str] = []

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("thoughtSignature", "thought_signature"):
                    found.append(item)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json.loads(raw))
    return found


def _issued(fake: FakeProvider, record) -> list[str]:
    return _signatures(json.dumps(fake.gemini.replies[record.response_id]).encode())


def test_a_thinking_tool_loop_sends_signatures_verbatim_across_turns_and_resume(fake, tmp_path):
    home, cwd = project(tmp_path)
    fake.script(Reply(text="Reading.", tool_calls=[FakeCall("read_file", {"path": "notes.txt"})]),
                Reply(text="It says 42."), Reply(text="Still 42."))
    first = agent(fake, home, cwd, reasoning=Reasoning("adaptive"))
    run(first, "what do the notes say?")
    session_id = first.session_id
    first.close()
    again = agent(fake, home, cwd, reasoning=Reasoning("adaptive"), session_id=session_id)
    run(again, "and now?")
    again.close()
    calls = generations(fake)
    assert [r.status for r in calls] == [200, 200, 200]
    issued = _issued(fake, calls[0]) + _issued(fake, calls[1])
    assert len(issued) == 2  # the function call's, the final text's
    for sent in (calls[1], calls[2]):
        assert _issued(fake, calls[0])[0] in _signatures(sent.raw)
    assert set(issued) <= set(_signatures(calls[2].raw))  # after the resume: every one


def test_an_altered_signature_is_refused_by_the_fake(fake, tmp_path):
    from google import genai
    from google.genai import errors, types

    client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=fake.gemini_base_url))
    contents = [{"role": "user", "parts": [{"text": "go"}]},
                {"role": "model", "parts": [{"function_call": {"name": "f", "args": {}},
                                             "thought_signature": b"forged"}]},
                {"role": "user", "parts": [{"function_response": {"name": "f", "response": {}}}]}]
    with pytest.raises(errors.ClientError, match="Corrupted thought signature"):
        client.models.generate_content(model=MODEL, contents=contents)
    contents[1]["parts"][0].pop("thought_signature")
    with pytest.raises(errors.ClientError, match="missing a `thought_signature`"):
        client.models.generate_content(model=MODEL, contents=contents)
    client.close()


def test_a_second_session_within_the_ttl_reads_the_shared_cache(fake, tmp_path):
    home, cwd = project(tmp_path)
    first = agent(fake, home, cwd)
    run(first, "one")
    second = agent(fake, home, cwd)  # another session (its own store connection)
    run(second, "two")
    calls = generations(fake)
    assert len(creations(fake)) == 1
    assert calls[1].body["cachedContent"] == calls[0].body["cachedContent"]
    assert calls[1].cache_read >= 0.9 * calls[0].cache_read
    first.close()
    assert fake.gemini.caches["cachedContents/fake1"].alive(fake.clock.now())  # still used
    second.close()  # deleted, or kept for a session expected back - and then billed to expiry
    fake.clock.advance(fake.gemini.caches["cachedContents/fake1"].expires)
    store = SessionStore(home / "state.db")
    shown = sum(r["cost_usd"] for s in (first, second) for r in store.usage_rows(s.session_id))
    assert math.isclose(shown, bill_total(fake), rel_tol=0.01), (shown, bill_total(fake))


def test_the_fake_enforces_the_floor_and_no_tools_beside_a_cache(fake):
    from google import genai
    from google.genai import errors, types

    client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=fake.gemini_base_url))
    with pytest.raises(errors.ClientError, match="too small"):
        client.caches.create(model=MODEL, config={"system_instruction": "short", "ttl": "60s"})
    cache = client.caches.create(model=MODEL, config={"system_instruction": "x " * 9000, "ttl": "60s"})
    with pytest.raises(errors.ClientError, match="CachedContent can not be used"):
        client.models.generate_content(model=MODEL, contents="hi", config={
            "cached_content": cache.name, "system_instruction": "again"})
    fake.clock.advance(30)
    client.caches.delete(name=cache.name)
    lines = fake.gemini.bill(fake.requests, fake.clock.now())
    assert lines["storage"] == pytest.approx(cache.usage_metadata.total_token_count * 30 / 3600
                                             * PRICES[MODEL][3] / 1e6)
    client.close()


def test_new_keeps_the_cache_of_an_unchanged_prefix_and_model_deletes_it(fake, tmp_path):
    home, cwd = project(tmp_path)
    session = agent(fake, home, cwd)
    run(session, "one")
    session.new_session()  # the same tools and shared system blocks: the cache goes on
    run(session, "two")
    assert fake.gemini.creations == 1
    assert generations(fake)[1].body["cachedContent"] == "cachedContents/fake1"
    notice = session.switch_model("gemini-2.5-flash")
    assert "explicit cache of the old prefix" in notice.text
    assert "per million tokens per hour" in notice.text
    run(session, "three")  # another model: another prefix; the old cache is deleted
    assert not fake.gemini.caches["cachedContents/fake1"].alive(fake.clock.now())
    session.close()
    assert not any(c.alive(fake.clock.now()) for c in fake.gemini.caches.values())
    rows = SessionStore(home / "state.db").usage_rows(session.session_id)
    assert sum(r["stored_token_hours"] for r in rows) != 0  # storage billed, refunds netted


def test_a_cache_the_api_no_longer_has_is_forgotten_and_the_turn_goes_on(fake, tmp_path):
    from google import genai
    from google.genai import types

    from agent.cancel import CancelToken
    from agent.cost import pricing
    from agent.messages import Message, Request, SystemBlock
    from agent.providers.base import StreamDone
    from agent.providers.gemini.adapter import GeminiProvider
    from agent.providers.gemini.cache_store import MemoryLedger

    adapter = GeminiProvider(ProviderSettings("gemini", MODEL, "k", fake.gemini_base_url))
    adapter.caches.ledger = MemoryLedger()  # what another process does is not in it
    adapter.use_clock(fake.clock.now)  # time passes on both sides alike
    adapter.open(Services(None, session_pauses(), pricing.prices))
    system = [SystemBlock("Context: " + "facts. " * 6000, "stable", "project")]
    shown = 0.0
    for turn in range(2):
        request = Request(model=MODEL, system=system, messages=[Message("user", f"q{turn}")],
                          session_id="s")
        replies = [i.reply for i in adapter.stream(request, CancelToken()) if isinstance(i, StreamDone)]
        shown += pricing.cost(replies[0].usage, MODEL)
        charged = adapter.charges("s")  # the cache's creation and storage
        shown += pricing.cost(charged[0], MODEL) if charged else 0.0
        fake.clock.advance(60)
        if turn == 0:  # another process deletes the cache behind this one's back
            other = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=fake.gemini_base_url))
            other.caches.delete(name="cachedContents/fake1")
            other.close()
    settled = adapter.settle("s")
    shown += pricing.cost(settled[0], MODEL) if settled else 0.0
    adapter.close()
    statuses = [r.status for r in generations(fake)]
    assert statuses == [200, 403, 200]  # the second turn went on, with a cache made anew
    assert fake.gemini.creations == 2
    assert math.isclose(shown, bill_total(fake), rel_tol=0.01), (shown, bill_total(fake))


def test_the_cli_answers_with_gemini_and_its_json_cost_is_the_bill(fake, tmp_path):
    from tests.helpers import gemini_env, hermes

    home, cwd = project(tmp_path)
    fake.script(Reply(text="Hello from Gemini."))
    result = hermes(["-q", "say hello", "--json", "-m", MODEL], gemini_env(home, fake), cwd=cwd)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["answer"] == "Hello from Gemini."
    assert math.isclose(data["usage"]["cost_usd"], bill_total(fake), rel_tol=0.01)
    assert not any(c.alive(fake.clock.now()) for c in fake.gemini.caches.values())


def test_a_cache_sessions_keep_coming_back_to_outlives_them_billed_to_its_expiry(fake, tmp_path):
    home, cwd = project(tmp_path)
    sessions = [agent(fake, home, cwd) for _ in range(3)]
    for n, session in enumerate(sessions):  # three sessions on one prefix within minutes
        run(session, f"hello {n}")
        fake.clock.advance(60)
    for session in sessions:
        session.close()
    assert fake.gemini.creations == 1
    cache = fake.gemini.caches["cachedContents/fake1"]
    assert cache.alive(fake.clock.now())  # another session is expected before it expires
    fake.clock.advance(cache.expires - fake.clock.now())  # ... none came: it expires
    store = SessionStore(home / "state.db")
    shown = sum(r["cost_usd"] for s in sessions for r in store.usage_rows(s.session_id))
    assert math.isclose(shown, bill_total(fake), rel_tol=0.01), (shown, bill_total(fake))
