"""Images through the real CLI: `hermes -q TEXT --image FILE`, the image re-sent
byte-identically after `--resume` and read from the cache, the REPL's `@shot.png`
(Tab-completed) and a pasted path, and the clear errors before any request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes import Reply
from tests.fakes.anthropic_api import build_blocks
from tests.fakes.cache import Prompt, canonical
from tests.helpers import anthropic_env, hermes, openai_env, screenshot

pytestmark = pytest.mark.wire


def _images(body: dict) -> list[dict]:
    """Every image part of a request body, in order (any provider's wire)."""
    found = []
    for message in body.get("messages") or body.get("input") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            inner = part.get("content") if part.get("type") == "tool_result" else None
            for piece in [part, *(inner if isinstance(inner, list) else [])]:
                if piece.get("type") in ("image", "image_url", "input_image"):
                    found.append(piece)
    return found


def _through_images(body: dict) -> int:
    """The Anthropic fake's tokens up to and including the last image block."""
    prompt = Prompt(body["model"], build_blocks(body))
    last = max(i for i, b in enumerate(prompt.blocks) if '"type":"image"' in b.text)
    return prompt.cum[last]


def test_oneshot_image_is_sent_then_resent_identically_after_resume_and_read_from_cache(
        fake_provider, hermes_home, tmp_path: Path):
    (tmp_path / "shot.png").write_bytes(screenshot(2880, 1800))
    (tmp_path / "small.jpg").write_bytes(screenshot(640, 400, fmt="JPEG"))
    fake_provider.script(Reply(text="a terminal window"), Reply(text="still the same window"))
    env = anthropic_env(hermes_home, fake_provider)
    first = hermes(["-q", "what is on this screen?", "--image", "shot.png", "--image",
                    "small.jpg", "--json"], env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "hermes: image: shot.png 2880x1800" in first.stderr  # scaled once, said so
    session = json.loads(first.stdout)["session_id"]
    sent = fake_provider.requests[0]
    images = _images(sent.body)
    assert [i["source"]["media_type"] for i in images] == ["image/png", "image/jpeg"]
    assert sent.status == 200

    again = hermes(["-q", "and the title bar?", "--resume", session, "--json"], env, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    later = fake_provider.requests[1]
    first_user = sent.body["messages"][0]
    assert canonical(later.body["messages"][0]) == canonical(first_user)  # same bytes
    for image in images:  # the base64 text itself is in the request as sent
        assert image["source"]["data"].encode() in later.raw
    assert later.cache_read >= _through_images(later.body)  # the prefix with the images
    assert later.cache_read > 0 and sent.cache_write > 0


@pytest.mark.parametrize("provider", ["openai"])
def test_oneshot_image_on_openai(provider, fake_provider, hermes_home, tmp_path: Path):
    (tmp_path / "shot.png").write_bytes(screenshot(1200, 900))
    fake_provider.script(Reply(text="a chart"))
    env = openai_env(hermes_home, fake_provider)
    done = hermes(["-q", "what is this?", "--image", "shot.png"], env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    record = fake_provider.requests[0]
    part = _images(record.body)[0]
    url = part["image_url"]["url"] if part["type"] == "image_url" else part["image_url"]
    assert url.startswith("data:image/png;base64,") and record.status == 200


def test_bad_images_are_one_clear_line_and_nothing_is_sent(fake_provider, hermes_home,
                                                           tmp_path: Path):
    (tmp_path / "notes.txt").write_text("not a picture\n")
    (tmp_path / "shot.png").write_bytes(screenshot(300, 200))
    env = anthropic_env(hermes_home, fake_provider)
    text = hermes(["-q", "look", "--image", "notes.txt"], env, cwd=tmp_path)
    assert text.returncode == 1
    assert "hermes: error: notes.txt is not an image hermes can attach (PNG, JPEG, GIF or " \
           "WebP)" in text.stderr and "Traceback" not in text.stderr
    missing = hermes(["-q", "look", "--image", "gone.png"], env, cwd=tmp_path)
    assert missing.returncode == 1 and "gone.png: no such file" in missing.stderr
    alone = hermes(["--image", "shot.png"], env, cwd=tmp_path)
    assert alone.returncode == 1 and "--image goes with -q" in alone.stderr
    blind = hermes(["-q", "look", "--image", "shot.png", "--provider", "openai", "-m",
                    "gpt-3.5-turbo"], openai_env(hermes_home, fake_provider), cwd=tmp_path)
    assert blind.returncode == 1 and "gpt-3.5-turbo takes no images" in blind.stderr
    assert fake_provider.requests == []
    listed = hermes(["sessions", "list"], env, cwd=tmp_path)  # no empty sessions left behind
    assert listed.returncode == 0 and listed.stdout.count("\n") <= 1, listed.stdout


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_read_file_shows_an_image_on_each_wire(provider, fake_provider, hermes_home,
                                               tmp_path: Path):
    from tests.fakes import ToolCall

    (tmp_path / "chart.png").write_bytes(screenshot(1600, 1000))
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"path": "chart.png"})]),
                         Reply(text="a bar chart"))
    env = anthropic_env(hermes_home, fake_provider) if provider == "anthropic" \
        else openai_env(hermes_home, fake_provider)
    done = hermes(["-q", "what does chart.png show?"], env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "a bar chart"
    second = fake_provider.requests[1]
    assert second.status == 200 and len(_images(second.body)) == 1
    if provider == "openai":  # Chat Completions: after the tool result, as a user message
        roles = [m["role"] for m in second.body["messages"]]
        assert roles[-2:] == ["tool", "user"]
