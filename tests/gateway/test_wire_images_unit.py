"""The gateway's parsing of image_url parts (pure, fast tier): data: and http(s) URLs
are kept for the turn, anything else is one 400 line; an image alone is a message."""

from __future__ import annotations

import pytest

from agent.images import ImageError
from gateway import images
from gateway.wire import BadRequest, parse_chat


def _body(*parts) -> dict:
    return {"messages": [{"role": "user", "content": list(parts)}]}


def test_image_url_parts_are_taken_out_of_the_text():
    chat = parse_chat(_body({"type": "text", "text": "what is it?"},
                            {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk="}},
                            {"type": "image_url", "image_url": "https://example.invalid/a.png"}))
    assert chat.text == "what is it?"
    assert chat.images == ("data:image/png;base64,aGk=", "https://example.invalid/a.png")
    alone = parse_chat(_body({"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk="}}))
    assert alone.text == "" and len(alone.images) == 1


def test_other_image_urls_are_refused_and_http_ones_go_through_the_web_policy():
    with pytest.raises(BadRequest) as caught:
        parse_chat(_body({"type": "image_url", "image_url": {"url": "file:///etc/passwd"}}))
    assert "data:image/" in caught.value.message
    assert images.load("data:image/png;base64,aGk=") == b"hi"
    with pytest.raises(ImageError) as refused:  # decided before any packet: a literal address
        images.load("http://169.254.169.254/latest")
    assert refused.value.message.startswith("image URL not fetched")
    assert "169.254.169.254" in refused.value.message
