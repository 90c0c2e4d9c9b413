"""Images in the conversation (fast tier): scaling to each provider's limits once, the
formats taken and refused, vision per model, storage on both backends, token estimates,
compaction's mention, read_file on a picture, and `@shot.png` / pasted paths."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent.events import Done, ErrorEvent
from agent.images import Image, ImageError, decode_images, from_data_url
from agent.messages import Message
from agent.providers import registry
from agent.providers.anthropic import IMAGES as ANTHROPIC
from agent.providers.image_scale import prepare
from agent.providers.openai import IMAGES as OPENAI
from agent.providers.spec import ImageLimits, pixel_tokens
from agent.sessions.conversation import Conversation
from agent.tokens import estimate_tokens
from frontend.mentions import attach
from tests.fakes import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import screenshot, scripted_agent


def _size(data: bytes) -> tuple[int, int]:
    from PIL import Image as PIL

    with PIL.open(io.BytesIO(data)) as image:
        return image.size


def test_a_screenshot_is_scaled_once_to_anthropic_limits():
    shot = screenshot(2880, 1800)
    done = prepare(shot, "shot.png", ANTHROPIC)
    image = done.image
    assert (image.width, image.height) == _size(image.raw())
    assert max(image.width, image.height) <= 1568
    assert image.width * image.height <= 1_150_000
    assert abs(image.width / image.height - 2880 / 1800) < 0.01  # aspect kept
    assert image.media_type == "image/png" and image.size < len(shot)
    assert done.tokens == pixel_tokens(image.width, image.height) <= 1534
    assert "2880x1800" in done.note() and f"{image.width}x{image.height}" in done.note()


def test_openai_limits_fit_2048_and_the_short_side_to_768():
    image = prepare(screenshot(2880, 1800), "shot.png", OPENAI).image
    assert max(image.width, image.height) <= 2048 and min(image.width, image.height) <= 768
    assert registry.image_limits("openai", "gpt-5.2") is OPENAI
    assert registry.image_limits("openrouter", "anthropic/claude-sonnet-5") is ANTHROPIC


def test_an_image_within_the_limits_is_sent_byte_for_byte():
    small = screenshot(800, 500, fmt="JPEG")
    done = prepare(small, "small.jpg", ANTHROPIC)
    assert done.image.raw() == small and not done.scaled
    assert done.image.media_type == "image/jpeg"


def test_an_image_over_the_byte_limit_is_made_smaller_until_it_fits():
    import random

    from PIL import Image as PIL

    rng = random.Random(3)
    noisy = PIL.frombytes("RGB", (600, 600), bytes(rng.randrange(256) for _ in range(600 * 600 * 3)))
    out = io.BytesIO()
    noisy.save(out, "JPEG", quality=95)
    tight = ImageLimits(max_edge=4000, max_pixels=10**8, max_bytes=60_000, tokens=pixel_tokens)
    image = prepare(out.getvalue(), "noise.jpg", tight).image
    assert len(image.data) <= 60_000 and image.media_type == "image/jpeg"


@pytest.mark.parametrize("data, what", [(b"just some text\n", "not an image"),
                                        (b"BM" + b"\0" * 64, "not an image"),
                                        (screenshot(300, 200)[:200], "cannot be read")])
def test_other_files_and_damaged_images_are_one_clear_error(data, what):
    with pytest.raises(ImageError) as caught:
        prepare(data, "thing.bin", ANTHROPIC)
    assert what in caught.value.message and "\n" not in caught.value.message
    if what == "not an image":
        assert "PNG, JPEG, GIF or WebP" in caught.value.message


@pytest.mark.parametrize("fmt, media", [("GIF", "image/gif"), ("WEBP", "image/webp")])
def test_gif_and_webp_are_taken(fmt, media):
    assert prepare(screenshot(320, 200, fmt=fmt), "x", ANTHROPIC).image.media_type == media


def test_a_model_without_vision_is_refused_before_any_request(tmp_path: Path):
    model = ScriptedModel(Reply(text="never"), name="openai")
    agent = scripted_agent(model, tmp_path / "home", tmp_path, provider="openai",
                           model_name="gpt-3.5-turbo")
    with pytest.raises(ImageError) as caught:
        agent.attach_image(screenshot(400, 300), "shot.png")
    assert "gpt-3.5-turbo takes no images" in caught.value.message
    image = prepare(screenshot(400, 300), "shot.png", OPENAI).image
    events = list(agent.run_turn("what is this?", images=(image,)))
    assert isinstance(events[0], ErrorEvent) and "takes no images" in events[0].message
    assert isinstance(events[-1], Done) and model.requests == []
    assert agent.conversation.messages == []  # nothing stored either


def test_images_are_stored_with_their_message_and_come_back_identical(any_store):
    image = prepare(screenshot(900, 600), "shot.png", ANTHROPIC).image
    any_store.create_session("s1", model="m", provider="anthropic", system_prompt="s")
    conversation = Conversation(any_store, "s1")
    conversation.append(Message("user", "look", images=(image,)))
    conversation.append(Message("assistant", "a cat"))
    again = Conversation(any_store, "s1")
    again.load()
    assert again.messages[0].images == (image,)
    assert again.messages[1].images == ()


def test_token_estimates_count_pixels_not_base64(tmp_path: Path):
    from agent.compression.plan import message_tokens

    image = prepare(screenshot(2880, 1800), "shot.png", ANTHROPIC).image
    with_image = message_tokens(Message("user", "look", images=(image,)))
    without = message_tokens(Message("user", "look"))
    assert with_image - without == pixel_tokens(image.width, image.height)
    assert with_image - without < estimate_tokens(image.data) / 10  # ~30,000 as text


def test_a_compacted_away_image_becomes_a_short_mention():
    from agent.compression.prompt import transcript

    image = Image("image/png", "iVBORw0KGgo=", 1568, 980, "shot.png")
    text, _ = transcript((Message("user", "why does this fail?", images=(image,)),
                          Message("assistant", "the port is taken")))
    assert "USER: [image shot.png, 1568x980] why does this fail?" in text
    assert "iVBOR" not in text


def test_read_file_shows_an_image_to_the_model(tmp_path: Path):
    (tmp_path / "chart.png").write_bytes(screenshot(2000, 1000))
    model = ScriptedModel(Reply(tool_calls=[ToolCall("read_file", {"path": "chart.png"})]),
                          Reply(text="a chart"))
    agent = scripted_agent(model, tmp_path / "home", tmp_path)
    events = list(agent.run_turn("read chart.png"))
    assert isinstance(events[-1], Done) and events[-1].reason == "answer"
    result = model.requests[1].messages[-1]
    assert result.role == "tool" and not result.is_error
    assert len(result.images) == 1 and result.images[0].width == 1517  # 1.15 MP
    assert "image chart.png 2000x1000" in result.content
    body = model.bodies[1]  # the Anthropic wire form: the picture inside the tool_result
    block = body["messages"][-1]["content"][0]
    assert block["type"] == "tool_result"
    assert [p["type"] for p in block["content"]] == ["text", "image"]


def test_read_file_on_an_image_for_a_model_without_vision_is_an_error_result(tmp_path: Path):
    (tmp_path / "chart.png").write_bytes(screenshot(200, 100))
    model = ScriptedModel(Reply(tool_calls=[ToolCall("read_file", {"path": "chart.png"})]),
                          Reply(text="ok"), name="openai")
    agent = scripted_agent(model, tmp_path / "home", tmp_path, provider="openai",
                           model_name="gpt-3.5-turbo")
    list(agent.run_turn("read chart.png"))
    result = model.requests[1].messages[-1]
    assert result.is_error and "is an image, not shown" in result.content
    assert result.images == ()


def test_mentions_and_pasted_paths_attach_images_and_keep_the_text(tmp_path: Path):
    shot = screenshot(300, 200)
    (tmp_path / "shot.png").write_bytes(shot)
    (tmp_path / "my shot.png").write_bytes(screenshot(320, 200))
    (tmp_path / "notes.txt").write_text("hello\n")
    found = attach("what is @shot.png and @notes.txt", tmp_path)
    assert found.images == [("shot.png", shot)]
    assert found.text.startswith("what is @shot.png and @notes.txt\n\n<file")
    pasted = attach(f"see '{tmp_path}/my shot.png' please", tmp_path)
    assert [name for name, _ in pasted.images] == [f"{tmp_path}/my shot.png"]  # as written
    alone = attach(str(tmp_path / "shot.png"), tmp_path)
    assert alone.images == [(str(tmp_path / "shot.png"), shot)]
    assert alone.text == str(tmp_path / "shot.png")
    escaped = attach(f"{tmp_path}/my\\ shot.png", tmp_path)
    assert len(escaped.images) == 1
    assert attach("a missing.png here", tmp_path).images == []


def test_data_urls_decode_and_bad_ones_are_refused():
    assert from_data_url("data:image/png;base64,aGk=") == ("image/png", b"hi")
    with pytest.raises(ImageError):
        from_data_url("data:image/png,raw")
    assert decode_images(None) == ()


def test_a_history_with_images_is_not_sent_to_a_model_without_vision(tmp_path: Path):
    model = ScriptedModel(Reply(text="a cat"), name="openai")
    agent = scripted_agent(model, tmp_path / "home", tmp_path, provider="openai",
                           model_name="gpt-5.2")
    image = agent.attach_image(screenshot(400, 300), "cat.png").image
    list(agent.run_turn("what is this?", images=(image,)))
    agent.switch_model("gpt-3.5-turbo")
    events = list(agent.run_turn("and now?"))
    assert isinstance(events[0], ErrorEvent) and "takes no images" in events[0].message
    assert len(model.requests) == 1


def test_retry_runs_the_message_again_with_its_images(tmp_path: Path):
    from frontend import commands as shared

    model = ScriptedModel(Reply(text="a cat"), Reply(text="a dog"))
    agent = scripted_agent(model, tmp_path / "home", tmp_path)
    image = agent.attach_image(screenshot(400, 300), "pet.png").image
    list(agent.run_turn("what is this?", images=(image,)))
    reply = shared.retry(shared.Handle(agent), "")
    assert reply.data == "what is this?" and reply.data.images == (image,)
    list(agent.run_turn(reply.data, images=reply.data.images))
    assert model.bodies[1]["messages"][0] == model.bodies[0]["messages"][0]
