"""Images on each provider's wire (pure mapping): Anthropic base64 image blocks (also in a
tool_result), Chat Completions data-URL image_url parts (a tool's images in a user message
after the run of results), Responses input_image parts; and each fake server takes them
and counts them by its provider's formula."""

from __future__ import annotations

import base64

from agent.images import Image
from agent.messages import Breakpoint, Message, Request, ToolCall, canonical_json
from agent.providers.anthropic.adapter import map_request as anthropic_request
from agent.providers.openai.adapter import map_request as chat_request
from agent.providers.openai.responses_map import map_request as responses_request
from tests.fakes import anthropic_api, openai_api
from tests.fakes.cache import Prompt
from tests.fakes.images import anthropic_tokens, openai_tokens
from tests.helpers import screenshot

PNG = screenshot(400, 300)
IMAGE = Image("image/png", base64.b64encode(PNG).decode(), 400, 300, "shot.png")
CALLS = (ToolCall("c1", "read_file", '{"path":"a.png"}'), ToolCall("c2", "read_file", '{"path":"b.txt"}'))


def history() -> list[Message]:
    return [Message("user", "what is this?", images=(IMAGE,)),
            Message("assistant", "", tool_calls=CALLS),
            Message("tool", "image a.png", tool_call_id="c1", tool_name="read_file", images=(IMAGE,)),
            Message("tool", "text", tool_call_id="c2", tool_name="read_file"),
            Message("assistant", "done"), Message("user", "thanks")]


def request(model: str = "claude-sonnet-5", **changes) -> Request:
    return Request(model=model, system=[], messages=history(), **changes)


def test_anthropic_images_are_base64_blocks_before_the_text_and_inside_tool_results():
    body = anthropic_request(request(breakpoints=[Breakpoint("message", 2)]))
    first = body["messages"][0]["content"]
    assert first[0] == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                     "data": IMAGE.data}}
    assert first[1] == {"type": "text", "text": "what is this?"}
    result = body["messages"][2]["content"][0]
    assert [p["type"] for p in result["content"]] == ["text", "image"]
    assert "cache_control" in result  # a breakpoint on the tool result still lands
    anthropic_api.validate(body)
    prompt = Prompt(body["model"], anthropic_api.build_blocks(body))
    image_block = prompt.blocks[0]
    assert anthropic_tokens(400, 300) == 160 < image_block.tokens < 170  # + {"type":"image"}
    assert canonical_json(body) == canonical_json(anthropic_request(request(
        breakpoints=[Breakpoint("message", 2)])))  # byte-stable


def test_chat_completions_images_are_data_urls_and_tool_images_follow_the_results():
    body = chat_request(request("gpt-5.2"))
    user = body["messages"][0]["content"]
    assert user[0] == {"type": "image_url", "image_url": {"url": IMAGE.data_url}}
    assert user[1] == {"type": "text", "text": "what is this?"}
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "user", "assistant", "user"]
    shown = body["messages"][4]["content"]
    assert shown[0]["text"] == "[images from read_file (c1)]"
    assert shown[1]["image_url"]["url"] == IMAGE.data_url
    assert isinstance(body["messages"][2]["content"], str)  # tool content stays text
    openai_api.validate(body)  # the fake refuses image parts inside a tool message
    blocks = openai_api.build_blocks(body)  # the image by OpenAI's tiles, not base64/4
    assert openai_tokens(400, 300) == 255 < blocks[0].tokens < 300


def test_chat_completions_breakpoints_still_name_the_neutral_message():
    body = chat_request(request("anthropic/claude-sonnet-5", breakpoints=[Breakpoint("message", 5)]))
    assert "cache_control" in body["messages"][-1]["content"][-1]


def test_responses_images_are_input_image_parts_also_in_function_call_output():
    body = responses_request(request("gpt-5.2"), store=False, cache_controls=False,
                             reasoning_model=True)
    items = body["input"]
    assert items[0]["content"][0] == {"type": "input_image", "image_url": IMAGE.data_url,
                                      "detail": "auto"}
    output = next(i for i in items if i.get("type") == "function_call_output")["output"]
    assert [p["type"] for p in output] == ["input_text", "input_image"]
