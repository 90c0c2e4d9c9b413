"""The fake's cache model itself (fast tier, no sockets): caches belong to the model and
the prefix bytes, not to a session; OpenAI's automatic cache matches token prefixes, so a
message that differs only near its end still hits up to the difference."""

from __future__ import annotations

from tests.fakes.cache import Block, PrefixCache, Prompt, make_block


def system(text: str) -> Block:
    return make_block({"role": "system", "content": text}, "messages", 0, role="system")


def prompt(tail: str) -> Prompt:
    tools = [make_block({"type": "function", "name": f"t{i}", "x": "y" * 400}, "tools")
             for i in range(3)]
    return Prompt("gpt-5", [*tools, system("shared " * 600 + tail)])


def test_openai_reads_into_a_message_that_differs_near_its_end():
    cache = PrefixCache()
    first = prompt("session one")
    cache.automatic("k", first, min_tokens=1024, step=128, ttl=300, now=0)
    second = prompt("session two")
    cached, _ = cache.automatic("k", second, min_tokens=1024, step=128, ttl=300, now=1)
    tools_end = second.cum[2]
    assert cached > tools_end  # more than the whole blocks that match
    assert cached <= second.total - 2 and cached % 128 == 0


def test_openai_cache_is_per_key_and_expires():
    cache = PrefixCache()
    cache.automatic("k", prompt("a"), min_tokens=1024, step=128, ttl=300, now=0)
    assert cache.automatic("other", prompt("b"), min_tokens=1024, step=128, ttl=300,
                           now=1)[0] == 0
    assert cache.automatic("k", prompt("c"), min_tokens=1024, step=128, ttl=300, now=999)[0] == 0


def test_anthropic_entries_are_shared_by_any_request_with_the_same_bytes():
    cache = PrefixCache()
    blocks = [make_block({"text": "x" * 8000}, "system")]
    one = cache.anthropic(Prompt("claude-sonnet-5", blocks), [(0, 300)], 1024, 0)
    two = cache.anthropic(Prompt("claude-sonnet-5", list(blocks)), [(0, 300)], 1024, 1)
    other_model = cache.anthropic(Prompt("claude-opus-5", list(blocks)), [(0, 300)], 1024, 2)
    size = Prompt("claude-sonnet-5", blocks).total
    assert one.write == size and two.read == size and other_model.read == 0
