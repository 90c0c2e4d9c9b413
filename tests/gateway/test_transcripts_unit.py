"""Transcript hashing and matching (fast tier: in process, a temporary SQLite file; the
index tests also run on PostgreSQL in the wire tier through `database_url`)."""

from __future__ import annotations

from gateway import stateless
from gateway.transcripts import TranscriptIndex, candidates, chain
from gateway.wire import parse_chat

U1, A1, U2, A2 = ("user", "my name is Bob"), ("assistant", "Hi Bob"), ("user", "q"), ("assistant", "a")
OWNER, OTHER = "a" * 64, "b" * 64


def test_chain_hashes_every_prefix_and_tells_roles_and_boundaries_apart():
    hashes = chain([U1, A1, U2])
    assert hashes[:2] == chain([U1, A1])
    assert len(set(hashes)) == 3
    assert chain([("user", "ab")]) != chain([("assistant", "ab")])
    assert chain([("user", "a"), ("user", "b")])[-1] != chain([("user", "ab")])[-1]
    assert chain([("user", "x\n1\ny")])[-1] != chain([("user", "x"), ("user", "y")])[-1]
    assert chain([("user", " Hi \n")]) == chain([("user", "Hi")])  # clients trim


def test_candidates_are_the_prefixes_ending_with_an_assistant_message():
    assert [n for n, _h in candidates([U1, A1, U2, A2])] == [2, 4]
    assert candidates([U1]) == [] and candidates([]) == []


def test_longest_match_of_the_same_owner_and_whether_it_is_the_tip(tmp_path, database_url):
    index = TranscriptIndex.open(tmp_path, database_url)
    index.record(OWNER, "s1", "id1", [U1, A1])
    index.record(OWNER, "s1", "id1", [U1, A1, U2, A2])
    assert index.longest(OWNER, (U1, A1, U2, A2)) .length == 4
    assert index.longest(OWNER, (U1, A1, U2, A2)).tip
    older = index.longest(OWNER, (U1, A1, ("user", "edited"), A2))
    assert (older.name, older.session_id, older.length, older.tip) == ("s1", "id1", 2, False)
    assert index.longest(OTHER, (U1, A1, U2, A2)) is None
    assert index.longest(OWNER, (U1,)) is None
    assert index.longest(OWNER, (("user", "other"), A1)) is None
    index.close()


def test_plans(tmp_path, database_url):
    index = TranscriptIndex.open(tmp_path, database_url)
    index.record(OWNER, "s1", "id1", [U1, A1])
    name, plan = stateless.plan(index, OWNER, (U1, A1))
    assert name == "s1" and plan.seed == () and plan.fork_of is None
    name, plan = stateless.plan(index, OWNER, (U1, A1, U2, A2))  # answered elsewhere: appended
    assert name == "s1" and plan.seed == (U2, A2)
    index.record(OWNER, "s1", "id1", [U1, A1, U2, A2])
    name, plan = stateless.plan(index, OWNER, (U1, A1, ("user", "edited"), A2))
    assert name != "s1" and plan.fork_of == "id1" and plan.parent_name == "s1"
    assert plan.seed == (U1, A1, ("user", "edited"), A2)
    name, plan = stateless.plan(index, OTHER, (U1, A1))
    assert name != "s1" and plan.fork_of is None and plan.seed == (U1, A1)
    name, plan = stateless.plan(None, OWNER, (U1, A1))
    assert plan.seed == (U1, A1)
    index.close()


def test_parse_chat_keeps_the_visible_history_only():
    chat = parse_chat({"messages": [
        {"role": "system", "content": "sys"}, {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]},
        {"role": "tool", "content": "result", "tool_call_id": "1"},
        {"role": "assistant", "content": [{"type": "text", "text": "hel"},
                                          {"type": "text", "text": "lo"}]},
        {"role": "user", "content": [{"type": "image_url"}, {"type": "text", "text": "see"}]},
        {"role": "assistant", "content": "seen"},
        {"role": "user", "content": "new"}]})
    assert chat.text == "new" and chat.system == "sys"
    assert chat.history == (("user", "hi"), ("assistant", "hello"),
                            ("user", "see"), ("assistant", "seen"))
