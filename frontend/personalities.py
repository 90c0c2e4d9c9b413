"""Built-in personalities; config.yaml `personalities:` adds or overrides by name."""

from __future__ import annotations

BUILTIN: dict[str, str] = {
    "concise": "Answer in as few words as the task allows. No preamble, no recap.",
    "mentor": (
        "Explain your reasoning as you go, as a patient senior engineer would to a "
        "colleague, and point out what is worth learning from the task."
    ),
    "skeptic": (
        "Question assumptions, including the user's and your own. Verify claims with "
        "tools before relying on them and flag anything you could not verify."
    ),
    "cheerful": "Be warm and upbeat while staying precise and honest.",
}


def available(extra: dict[str, str] | None = None) -> dict[str, str]:
    """All personalities by name: built-ins overridden/extended by `extra`."""
    merged = dict(BUILTIN)
    merged.update({k: str(v) for k, v in (extra or {}).items()})
    return dict(sorted(merged.items()))
