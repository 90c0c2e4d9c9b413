"""/goal over an HTTP session (the shared command path, the real `openai` client): the
goal's turns run as the request's, each reading what the previous request wrote, and the
answer says why it stopped; no tools or system byte changes."""

from __future__ import annotations

import json

from tests.fakes import Reply
from tests.helpers import ask


def test_a_goal_over_http_runs_its_turns_in_the_request(harness):
    server = harness.start()
    client = harness.client(server)
    harness.fake.script(Reply(text="first pass"), Reply(text="NOT DONE\nthe title is missing"),
                        Reply(text="added the title"), Reply(text="DONE\nit has a title"))
    answer = ask(client, "g1", "/goal --max-turns 3 give README.md a title")
    text = answer.choices[0].message.content
    assert text.startswith("added the title")
    assert "[goal stopped after 2 turns: the goal is met" in text
    requests = harness.fake.requests
    assert len(requests) == 4
    assert "Not done yet: the title is missing" in json.dumps(requests[2].body["messages"][-1])
    bodies = [r.body for r in requests]
    assert len({json.dumps(b["tools"], sort_keys=True) for b in bodies}) == 1
    assert len({"".join(s["text"] for s in b["system"]) for b in bodies}) == 1
    for before, after in zip(requests, requests[1:], strict=False):
        assert after.cache_read >= 0.9 * before.prompt_tokens
    usage = ask(client, "g1", "/goal --max-turns 0 x").choices[0].message.content
    assert "--max-turns takes a whole number" in usage and len(harness.fake.requests) == 4
