"""Which model names a session may switch to: another catalogue owner's model is refused
with the reason; an OpenAI-compatible server serves any name."""

from __future__ import annotations

from frontend.commands import foreign_model


def test_another_owners_model_is_named_and_refused() -> None:
    why = foreign_model("gpt-5.2", "anthropic")
    assert why is not None and "openai model" in why and "anthropic" in why
    assert foreign_model("claude-sonnet-5", "openai") is not None


def test_own_unknown_and_compatible_servers_pass() -> None:
    assert foreign_model("claude-opus-5", "anthropic") is None
    assert foreign_model("my-finetune", "anthropic") is None  # not catalogued: the provider decides
    assert foreign_model("claude-sonnet-5", "openrouter") is None  # a compatible server
