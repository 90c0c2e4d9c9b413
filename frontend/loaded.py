"""What a new session loaded into its prompt, for the start banner: the context file,
the memory entries and the preloaded skills, each with its size in tokens (estimated
the way the prompt's own sizes are)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.tokens import estimate_tokens

if TYPE_CHECKING:
    from agent.agent import AIAgent


def resumed_line(agent: AIAgent) -> str:
    """What a resumed session's prompt is: its stored bytes, sent again as they were."""
    tokens = estimate_tokens(agent.session.stable + agent.session.ephemeral)
    return (f"loaded: the stored prompt as it was (~{tokens:,} tokens, so the first call reads "
            "the cache if it is still warm); the context file and memory are re-read by a new "
            "session (/new)")


def loaded_line(agent: AIAgent) -> str | None:
    """"loaded: context HERMES.md (~1,234 tokens) · memory 3 + 1 user entries (~210
    tokens) · skills debugging (~800 tokens)"; None for a resumed session (its stored
    prompt is reused as it was)."""
    inputs = agent.session.inputs
    if inputs is None:
        return None
    found = inputs.context_file
    if found is None:
        parts = ["no context file"]
    else:
        text = found.text[: inputs.context_max_chars] if inputs.context_max_chars else ""
        parts = [f"context {found.name} (~{estimate_tokens(text):,} tokens)"]
    notes = "\n".join((*inputs.memory, *inputs.user))
    parts.append(f"memory {len(inputs.memory)} + {len(inputs.user)} user entries "
                 f"(~{estimate_tokens(notes):,} tokens)")
    skills = [(name, agent.skills.get(name)) for name in agent.config.skills]
    shown = [f"{name} (~{estimate_tokens(skill.body):,} tokens)" for name, skill in skills
             if skill is not None]
    parts.append("skills " + ", ".join(shown) if shown else "no preloaded skills")
    return "loaded: " + " · ".join(parts)
