"""Checks of command-line words before a session is opened.

Argv words that are not UTF-8 arrive as lone surrogates (see memory/text.py): they are
escaped and the user is told; an empty `--resume` is an error, not a new session; a
`--resume` with no id at all opens the picker.
"""

from __future__ import annotations

import sys

from agent.errors import ConfigError
from memory.text import NOTE, is_storable, storable


def checked_query(query: str | None) -> str | None:
    """The -q prompt made storable; prints one note on stderr when it had to escape."""
    if query is None or is_storable(query):
        return query
    sys.stderr.write(f"hermes: note: the prompt is not valid UTF-8; {NOTE}\n")
    return storable(query)


def checked_resume(resume: str | None) -> str | None:
    """The --resume id made storable; an empty id raises a ConfigError."""
    if resume is None:
        return None
    if not resume.strip():
        raise ConfigError("--resume needs a session id, got an empty string",
                          "pass an id or prefix from `hermes sessions list`, or -c for the latest")
    return storable(resume)


def bare_resume(argv: list[str]) -> list[str]:
    """`--resume`/`-r` with no id after it (last, or before another option) asks for the
    resume picker: it becomes `--resume=?` (hermes_cli.picker.PICK)."""
    out = list(argv)
    for i, word in enumerate(out):
        if word == "--":
            break
        if word in ("-r", "--resume") and (i + 1 == len(out) or out[i + 1].startswith("-")):
            out[i] = "--resume=?"
    return out


#: `-q --output-format`: what stdout carries (hermes_cli/oneshot_output.py)
OUTPUT_FORMATS = ("text", "json", "stream-json")


def checked_output(output_format: str | None, json_out: bool, oneshot: bool) -> str:
    """The one-shot output format from `--output-format` and `--json` (= json)."""
    if output_format is None:
        return "json" if json_out else "text"
    if output_format not in OUTPUT_FORMATS:
        raise ConfigError(f"--output-format {output_format!r} is not a format",
                          f"use one of: {', '.join(OUTPUT_FORMATS)}")
    if not oneshot:
        raise ConfigError("--output-format goes with -q",
                          'e.g. hermes -q "summarise README.md" --output-format stream-json')
    if json_out and output_format != "json":
        raise ConfigError(f"--json and --output-format {output_format} ask for two formats",
                          "give one: --json is --output-format json")
    return output_format
