"""Images over the gateway's OpenAI-compatible API, with the real `openai` client: a
data: URL `image_url` part reaches the provider as an image (scaled once), later turns
re-send it byte for byte and read it from the cache; an http(s) URL (fetched under the
web policy, not wired here) and a model without vision are clear 400s before any call."""

from __future__ import annotations

import base64

import openai
import pytest

from agent.images import ImageError
from tests.fakes import Reply
from tests.fakes.cache import canonical
from tests.helpers import ask, screenshot

pytestmark = pytest.mark.wire


def _with_image(text: str, url: str) -> list[dict]:
    return [{"role": "user", "content": [{"type": "text", "text": text},
                                         {"type": "image_url", "image_url": {"url": url}}]}]


def test_a_data_url_image_is_sent_kept_and_read_from_the_cache(harness):
    server = harness.start()
    client = harness.client(server)
    harness.fake.script(Reply(text="a login form"), Reply(text="the button is blue"))
    data = base64.b64encode(screenshot(2880, 1800)).decode()
    answer = ask(client, "s1", "", messages=_with_image("what is this?",
                                                        f"data:image/png;base64,{data}"))
    assert answer.choices[0].message.content == "a login form"
    first = harness.fake.requests[0]
    user = first.body["messages"][0]["content"]
    assert [p["type"] for p in user] == ["image", "text"]
    assert user[0]["source"]["data"] != data  # scaled to Anthropic's limits, once

    ask(client, "s1", "and the button colour?")
    second = harness.fake.requests[1]
    assert canonical(second.body["messages"][0]) == canonical(first.body["messages"][0])
    assert second.cache_read > 0


def test_http_image_urls_and_blind_models_are_refused_before_any_call(harness):
    server = harness.start()
    client = harness.client(server)
    with pytest.raises(openai.BadRequestError) as caught:
        ask(client, "s2", "", messages=_with_image("look", "http://10.1.2.3/a.png"))
    assert "image URL not fetched" in str(caught.value)  # a private address: the web policy
    with pytest.raises(openai.BadRequestError) as caught:
        ask(client, "s3", "", messages=_with_image("look", "ftp://example.invalid/a.png"))
    assert "image_url part needs a data:image/" in str(caught.value)
    data = base64.b64encode(b"plain text, not a picture").decode()
    with pytest.raises(openai.BadRequestError) as caught:
        ask(client, "s4", "", messages=_with_image("look", f"data:image/png;base64,{data}"))
    assert "not an image hermes can attach" in str(caught.value)
    assert harness.fake.requests == []


@pytest.mark.wire
def test_an_http_image_url_is_fetched_under_the_web_policy():
    """An allow-listed host is fetched; a redirect to a private address is refused and
    that address never sees a connection."""
    from agent.tools.web.policy import parse_allow_hosts
    from gateway import images
    from tests.fakes import web_site

    with web_site.serve() as site:
        got = images.load(f"{site.url}/data.json", parse_allow_hosts(["127.0.0.1"]))
        assert got.startswith(b"{")
        with pytest.raises(ImageError) as refused:
            images.load(f"{site.url}/to-private", parse_allow_hosts(["127.0.0.1"]))
        assert "image URL not fetched" in refused.value.message
        assert site.trap_untouched()
