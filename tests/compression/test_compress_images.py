"""Compaction with images (fast tier, scripted model validated like the API): the summary
call is the session's own request, images included (read from the cache, not re-sent as
text); the kept first request keeps its image, a summarised one is gone from the child's
history (the pruned transcript names it: agent/compression/prompt.py)."""

from __future__ import annotations

from agent.events import ErrorEvent
from agent.providers.anthropic import IMAGES
from agent.providers.image_scale import prepare
from tests.fakes import Reply
from tests.helpers import screenshot

BIG = {"claude-sonnet-5": 200_000}


def _images(body: dict) -> int:
    return sum(1 for m in body["messages"] if isinstance(m["content"], list)
               for p in m["content"] if p.get("type") == "image")


def test_compaction_keeps_the_first_requests_image_and_drops_a_summarised_one(session):
    s = session(context_windows=BIG)
    first = prepare(screenshot(800, 500), "first.png", IMAGES).image
    middle = prepare(screenshot(640, 400), "middle.png", IMAGES).image
    s.replies += [Reply(text="a login form"), Reply(text="an error dialog")]
    list(s.agent.run_turn("what is on first.png?", images=(first,)))
    list(s.agent.run_turn("and on middle.png?", images=(middle,)))
    for _ in range(8):
        s.tool_turn()
    events = list(s.agent.compress())
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    (call,) = s.summary_requests()
    assert _images(call.body) == 2  # the session's own request: both, from the cache
    kept = [image for m in s.agent.conversation.messages for image in m.images]
    assert kept == [first]  # the first request is kept verbatim, image and all
    s.replies.append(Reply(text="ok"))
    list(s.agent.run_turn("go on"))
    assert _images(s.calls[-1].body) == 1  # the child's first request
