"""Standard OpenAI clients (full history each time, no X-Hermes-Session-Id, no `user`)
keep their session and its cache: wire tier, real `openai` client, real server."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from tests.fakes import Reply
from tests.helpers import KEY_A, KEY_B, gateway_of, system_of

SYSTEM = {"role": "system", "content": "You are a helpful assistant for the test suite."}
TURNS = 20


def _numbered_answers(fake) -> None:
    """The fake answers the n-th request with 'answer n' (distinct visible texts)."""
    fake.responder = lambda rec: Reply(text=f"answer {len(fake.requests)}")


def _rate(rec) -> float:
    return round(rec.cache_read / rec.prompt_tokens, 4) if rec.prompt_tokens else 0.0


def _stateless_chat(client, turns: int, opening: str = "my name is Bob") -> list[object]:
    """A standard client: sends [system, u1, a1, ..., un] every time, no header."""
    messages: list[dict] = [SYSTEM]
    responses = []
    for n in range(turns):
        messages.append({"role": "user", "content": opening if n == 0 else f"question {n}"})
        raw = client.chat.completions.with_raw_response.create(model="hermes",
                                                               messages=messages)
        completion = raw.parse()
        responses.append((raw.headers, completion))
        messages.append({"role": "assistant", "content": completion.choices[0].message.content})
    return responses


def _header_chat(client, turns: int, session: str) -> None:
    """The same chat from a client that knows our header: only the new message."""
    for n in range(turns):
        client.chat.completions.create(
            model="hermes", messages=[SYSTEM, {"role": "user",
                                               "content": "my name is Bob" if n == 0
                                               else f"question {n}"}],
            extra_headers={"X-Hermes-Session-Id": session})


def test_stateless_chat_hits_the_cache_like_the_header_chat(harness):
    server = harness.start()
    _numbered_answers(harness.fake)
    _header_chat(harness.client(server, KEY_B), TURNS, "with-header")
    header_rates = [_rate(r) for r in harness.fake.requests]
    harness.fake.reset()
    _numbered_answers(harness.fake)
    responses = _stateless_chat(harness.client(server, KEY_A), TURNS)
    records = harness.fake.requests
    stateless_rates = [_rate(r) for r in records]
    print("per-turn hit rate, header:   ", header_rates)
    print("per-turn hit rate, stateless:", stateless_rates)
    assert len(records) == TURNS  # one provider call per turn, no replays
    assert stateless_rates == header_rates
    assert min(stateless_rates[1:]) > 0.5
    names = {h["x-hermes-session-id"] for h, _c in responses}
    stored = {h["x-hermes-stored-session-id"] for h, _c in responses}
    assert len(names) == 1 and len(stored) == 1  # one session, named in every response
    # the provider saw the whole chat once: each request = the previous one + 2 messages
    assert [len(r.body["messages"]) for r in records] == [2 * n + 1 for n in range(TURNS)]


def test_history_never_answered_here_is_seeded_as_real_messages(harness):
    server = harness.start()
    client = harness.client(server)
    history = [SYSTEM, {"role": "user", "content": "my name is Bob"},
               {"role": "assistant", "content": "Hello Bob."}]
    usage = client.chat.completions.create(  # a command first: it seeds nothing ...
        model="hermes", messages=[*history, {"role": "user", "content": "/title"}])
    assert not harness.fake.requests
    client.chat.completions.create(model="hermes", messages=[  # ... so this one seeds
        *history, {"role": "user", "content": "/title"},
        {"role": "assistant", "content": usage.choices[0].message.content},
        {"role": "user", "content": "what is my name?"}])
    sent = harness.fake.last.body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant", "user"]
    assert "my name is Bob" in str(sent[0]) and "Hello Bob." in str(sent[1])


def test_two_keys_with_identical_openings_never_share_a_session(harness):
    server = harness.start()
    _numbered_answers(harness.fake)
    alpha = _stateless_chat(harness.client(server, KEY_A), 2)
    # bravo sends alpha's exact conversation, answer included
    history = [SYSTEM, {"role": "user", "content": "my name is Bob"},
               {"role": "assistant", "content": alpha[0][1].choices[0].message.content},
               {"role": "user", "content": "question 1"}]
    raw = harness.client(server, KEY_B).chat.completions.with_raw_response.create(
        model="hermes", messages=history)
    alpha_ids = {h["x-hermes-stored-session-id"] for h, _c in alpha}
    assert raw.headers["x-hermes-stored-session-id"] not in alpha_ids
    assert raw.headers["x-hermes-session-id"] not in {h["x-hermes-session-id"] for h, _c in alpha}
    store = gateway_of(server).store
    row = store.get_session(raw.headers["x-hermes-stored-session-id"])
    assert row["parent_id"] is None  # not even a branch of the other key's session


def test_an_edited_history_branches_and_reads_the_parents_system_bytes(harness):
    server = harness.start()
    _numbered_answers(harness.fake)
    client = harness.client(server)
    chat = _stateless_chat(client, 3)
    parent_id = chat[0][0]["x-hermes-stored-session-id"]
    parent_system = system_of(harness.fake.requests[-1])
    first = chat[0][1].choices[0].message.content
    # the client edits its second question and resends from there
    edited = [SYSTEM, {"role": "user", "content": "my name is Bob"},
              {"role": "assistant", "content": first},
              {"role": "user", "content": "question ONE, edited"}]
    raw = client.chat.completions.with_raw_response.create(model="hermes", messages=edited)
    branch_id = raw.headers["x-hermes-stored-session-id"]
    assert branch_id != parent_id
    assert raw.headers["x-hermes-session-id"] != chat[0][0]["x-hermes-session-id"]
    row = gateway_of(server).store.get_session(branch_id)
    assert row["parent_id"] == parent_id
    branch_first = harness.fake.last
    assert system_of(branch_first) == parent_system  # the parent's stored bytes
    assert branch_first.cache_read > 0  # ... read from the cache the parent wrote
    # the branch continues statelessly, and the parent is still there for its own history
    branch_answer = raw.parse().choices[0].message.content
    more = client.chat.completions.with_raw_response.create(model="hermes", messages=[
        *edited, {"role": "assistant", "content": branch_answer},
        {"role": "user", "content": "and then?"}])
    assert more.headers["x-hermes-stored-session-id"] == branch_id
    back = client.chat.completions.with_raw_response.create(model="hermes", messages=[
        SYSTEM, {"role": "user", "content": "my name is Bob"},
        {"role": "assistant", "content": first},
        {"role": "user", "content": "question 1"},
        {"role": "assistant", "content": chat[1][1].choices[0].message.content},
        {"role": "user", "content": "question 2"},
        {"role": "assistant", "content": chat[2][1].choices[0].message.content},
        {"role": "user", "content": "question 3"}])
    assert back.headers["x-hermes-stored-session-id"] == parent_id


def test_a_truncated_history_branches_too(harness):
    server = harness.start()
    _numbered_answers(harness.fake)
    client = harness.client(server)
    chat = _stateless_chat(client, 3)
    raw = client.chat.completions.with_raw_response.create(model="hermes", messages=[
        SYSTEM, {"role": "user", "content": "my name is Bob"},
        {"role": "assistant", "content": chat[0][1].choices[0].message.content},
        {"role": "user", "content": "question 1"}])
    row = gateway_of(server).store.get_session(raw.headers["x-hermes-stored-session-id"])
    assert row["parent_id"] == chat[0][0]["x-hermes-stored-session-id"]


def test_the_header_still_wins(harness):
    server = harness.start()
    _numbered_answers(harness.fake)
    client = harness.client(server)
    chat = _stateless_chat(client, 2)
    history = [SYSTEM, {"role": "user", "content": "my name is Bob"},
               {"role": "assistant", "content": chat[0][1].choices[0].message.content},
               {"role": "user", "content": "question 1"},
               {"role": "assistant", "content": chat[1][1].choices[0].message.content},
               {"role": "user", "content": "question 2"}]
    raw = client.chat.completions.with_raw_response.create(
        model="hermes", messages=history, extra_headers={"X-Hermes-Session-Id": "named"})
    assert raw.headers["x-hermes-session-id"] == "named"
    assert raw.headers["x-hermes-stored-session-id"] != chat[0][0]["x-hermes-stored-session-id"]
    # a named session keeps its own history: the client's copy is not seeded into it
    assert len(harness.fake.last.body["messages"]) == 1
    by_user = client.chat.completions.with_raw_response.create(
        model="hermes", messages=history, user="by-user")
    assert by_user.headers["x-hermes-session-id"] == "by-user"


def test_streaming_clients_continue_their_session(harness):
    server = harness.start()
    _numbered_answers(harness.fake)
    client = harness.client(server)
    messages = [SYSTEM, {"role": "user", "content": "hello"}]
    stored = set()
    for n in range(3):
        with client.chat.completions.with_streaming_response.create(
                model="hermes", messages=messages, stream=True) as raw:
            stored.add(raw.headers["x-hermes-stored-session-id"])
            text = "".join(c.choices[0].delta.content or "" for c in raw.parse() if c.choices)
        messages += [{"role": "assistant", "content": text}, {"role": "user", "content": f"q{n}"}]
    assert len(stored) == 1
    assert harness.fake.last.cache_read > 0


def test_two_requests_with_the_same_history_at_once_branch_instead_of_piling_up(harness):
    """A "regenerate" clicked while the first answer runs: the second request waits for
    the session, finds it moved on, and branches (it never sees the first's answer)."""
    server = harness.start()
    client = harness.client(server)
    chat = _stateless_chat(client, 1)
    history = [SYSTEM, {"role": "user", "content": "my name is Bob"},
               {"role": "assistant", "content": chat[0][1].choices[0].message.content},
               {"role": "user", "content": "tell me a story"}]
    harness.fake.script(Reply(text="slow answer", delay=1.5), Reply(text="second answer"))
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(client.chat.completions.with_raw_response.create,
                            model="hermes", messages=history)
        deadline = time.monotonic() + 30
        while len(harness.fake.requests) < 2:  # the first is at the provider
            assert time.monotonic() < deadline
            time.sleep(0.01)
        second = pool.submit(client.chat.completions.with_raw_response.create,
                             model="hermes", messages=history)
        one, two = first.result(timeout=60), second.result(timeout=60)
    parent = chat[0][0]["x-hermes-stored-session-id"]
    assert one.headers["x-hermes-stored-session-id"] == parent
    branch = two.headers["x-hermes-stored-session-id"]
    assert branch != parent
    assert gateway_of(server).store.get_session(branch)["parent_id"] == parent
    assert "slow answer" not in str(harness.fake.last.body["messages"])
