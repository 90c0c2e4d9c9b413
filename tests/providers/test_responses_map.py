"""Pure mapping tests for the OpenAI Responses adapter and its profile facts."""

from __future__ import annotations

import json

import pytest

from agent.cost import pricing
from agent.messages import Breakpoint, Message, Request, SystemBlock, ToolCall, ToolSchema
from agent.modelcall.keepwarm import replay
from agent.providers.cache_model import CacheHints, HintFacts
from agent.providers.openai import api_mode as openai_api_mode
from agent.providers.openai.responses_map import map_request, map_response, map_usage
from agent.providers.registry import cache_controls, cache_model

TOOLS = [ToolSchema("shell", "Run a command", {"type": "object", "properties": {}})]
SYSTEM = [SystemBlock("installation"), SystemBlock("project"), SystemBlock("session"),
          SystemBlock("skills", layer="ephemeral")]
REASONING = json.dumps({"type": "reasoning", "id": "rs_1", "summary": [],
                        "encrypted_content": "enc:abc"})


def history() -> list[Message]:
    return [Message("user", "hi"),
            Message("assistant", "", tool_calls=(ToolCall("call_1", "shell", "{}"),),
                    reasoning=(REASONING,)),
            Message("tool", "a.txt", tool_call_id="call_1", tool_name="shell")]


def request(model: str = "gpt-5.6-sol", **changes) -> Request:
    values = {"model": model, "system": SYSTEM, "messages": history(), "tools": TOOLS,
              "session_id": "s", "cache": CacheHints(previous="resp_9", lifetime="30m"),
              "breakpoints": [Breakpoint("system", 1, "1h"), Breakpoint("message", 2)]}
    values.update(changes)
    return Request(**values)


def mapped(req: Request, *, store: bool = True) -> dict:
    return map_request(req, store=store, cache_controls=cache_controls("openai", req.model),
                       reasoning_model=True)


def test_gpt_5_6_gets_breakpoints_on_content_parts_and_cache_options():
    kwargs = mapped(request())
    system, *rest = kwargs["input"]
    assert [p.get("prompt_cache_breakpoint") for p in system["content"]] == [
        None, {"mode": "explicit", "ttl": "12h"}, None, None]
    assert rest[-1]["output"][-1]["prompt_cache_breakpoint"] == {"mode": "explicit",
                                                                 "ttl": "30m"}
    assert kwargs["prompt_cache_options"] == {"mode": "explicit", "ttl": "30m",
                                              "comparison_response_id": "resp_9"}
    assert "previous_response_id" not in kwargs and "prompt_cache_retention" not in kwargs
    # unstored responses cannot be compared: no comparison id with store false
    assert "comparison_response_id" not in mapped(request(), store=False)["prompt_cache_options"]


def test_reasoning_items_go_back_verbatim_before_the_function_call():
    items = mapped(request())["input"]
    assert [i.get("type") or i.get("role") for i in items] == [
        "system", "user", "reasoning", "function_call", "function_call_output"]
    assert items[2] == json.loads(REASONING)
    assert mapped(request())["include"] == ["reasoning.encrypted_content"]


@pytest.mark.parametrize("model", ["gpt-5.5", "gpt-5", "gpt-4.1"])
def test_older_models_get_nothing_5_6_only(model):
    kwargs = mapped(request(model, cache=CacheHints(previous="resp_9", retention="24h")))
    text = json.dumps(kwargs)
    assert "prompt_cache_breakpoint" not in text and "prompt_cache_options" not in kwargs
    assert kwargs["prompt_cache_retention"] == "24h"


def test_usage_and_diagnoses_map_to_our_buckets_and_causes():
    usage = map_usage({"input_tokens": 1000, "output_tokens": 7, "input_tokens_details": {
        "cached_tokens": 600, "cache_write_tokens": 300,
        "cache_write_tokens_details": {"ttl_30m_tokens": 100, "ttl_12h_tokens": 200}}})
    assert (usage.uncached, usage.write_5m, usage.write_1h, usage.cache_read) == (100, 100,
                                                                                 200, 600)
    base = {"id": "resp_2", "status": "completed", "output": [
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "e",
         "status": None},
        {"type": "function_call", "call_id": "c", "name": "shell", "arguments": "{}"}]}
    miss = map_response(dict(base, prompt_cache_diagnostics={
        "type": "cache_miss", "reason": "reasoning_effort_changed", "cache_missed_tokens": 42}))
    assert (miss.miss_reason, miss.missed_tokens) == ("thinking_changed", 42)
    assert json.loads(miss.message.reasoning[0]) == {"type": "reasoning", "id": "rs_2",
                                                     "summary": [], "encrypted_content": "e"}
    for kind in ("cache_hit", "comparison_response_not_found", "unavailable"):
        reply = map_response(dict(base, prompt_cache_diagnostics={"type": kind}))
        assert reply.miss_reason is None  # never a cause


def test_api_mode_and_cache_facts():
    assert openai_api_mode("openai", None) == "responses"
    assert openai_api_mode("openai", "https://acme.openai.azure.com/openai/v1") == "responses"
    assert openai_api_mode("openai", "http://127.0.0.1:8080/v1") == "chat-completions"
    assert openai_api_mode("openai", "http://127.0.0.1:8080/v1", "responses") == "responses"
    assert openai_api_mode("openai", None, "chat") == "chat-completions"
    assert openai_api_mode("openrouter", "https://openrouter.ai/api/v1") == "chat-completions"
    assert cache_model("openai", "gpt-5.6-sol", "responses").style == "markers"
    assert cache_model("openai", "gpt-5.5", "responses").style == "automatic"
    assert cache_model("openai", "gpt-5.6-sol").style == "automatic"  # chat completions
    assert cache_model("vllm", "gpt-5.6-sol", "responses").style == "automatic"
    assert not cache_controls("vllm", "gpt-5.6-sol")
    facts = HintFacts(key="k", ttl="1h", extended=True)
    assert cache_model("openai", "gpt-5.5", "responses").hints(facts).retention == "24h"
    assert cache_model("openai", "gpt-5.6-sol", "responses").hints(facts) == CacheHints(
        key="k", lifetime="12h")


def test_writes_are_priced_on_5_6_and_keep_warm_is_a_prewarm():
    price = pricing.prices("gpt-5.6-terra")
    assert price is not None
    assert price.cache_write_5m == price.cache_write_1h == pytest.approx(1.25 * price.input)
    assert price.cache_read == pytest.approx(0.1 * price.input)
    warm = replay(request(), cache_model("openai", "gpt-5.6-terra", "responses"))
    assert isinstance(warm, Request) and warm.cache.refresh and warm.max_tokens == 8192
    old = replay(request("gpt-5.2"), cache_model("openai", "gpt-5.2"))
    assert isinstance(old, Request) and not old.cache.refresh and old.max_tokens == 1


def test_hermes_models_names_each_models_cache_options():
    from hermes_cli.commands.models import _line, facts

    new, old, local = (facts(m, {}, {}) for m in ("gpt-5.6-sol", "gpt-5.5", "gpt-4o"))
    assert "prompt_cache_options" in new["cache_options"] and "30m" in _line(new)[0]
    assert old["cache_options"] == "automatic; prompt_cache_retention 24h"
    assert "5m" in _line(old)[0] and local["cache_options"].startswith("automatic")
