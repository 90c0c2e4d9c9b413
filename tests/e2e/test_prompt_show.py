"""`hermes prompt show`: the numbers per section are the real sizes of what is sent."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent.prompts.prompt import CONTEXT_NOTE
from agent.tokens import estimate_tokens
from tests.helpers import anthropic_env, hermes


def show(env: dict[str, str], cwd: Path, *args: str) -> dict[str, int]:
    """Run `hermes prompt show ARGS`; {"layer/section": tokens} of its table."""
    done = hermes(["prompt", "show", *args], env, cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    rows: dict[str, int] = {}
    for line in done.stdout.splitlines():
        found = re.match(r"^\s*(tools|stable|ephemeral)?\s+(.+?)\s+([\d,]+)\s*$", line)
        if found:
            layer, section, tokens = found.groups()
            rows[f"{layer or ''}/{section}"] = int(tokens.replace(",", ""))
    assert "/total re-sent on every call" in rows, done.stdout
    return rows


def context_row(text: str, name: str = "HERMES.md") -> int:
    """What the project context section of the stable layer costs for this file."""
    framed = f'<untrusted source="project context file">\n{text.strip()}\n</untrusted>'
    return estimate_tokens(f"# Project context ({name})\n{CONTEXT_NOTE}\n{framed}")


def test_context_file_section_is_its_real_size(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    small = "Use tabs.\n"
    (tmp_path / "HERMES.md").write_text(small)
    before = show(env, tmp_path)
    big = small + "Every module has a docstring saying what it is for.\n" * 40
    (tmp_path / "HERMES.md").write_text(big)
    after = show(env, tmp_path)
    assert before["stable/project context"] == context_row(small)
    assert after["stable/project context"] == context_row(big)
    grown = after["stable/project context"] - before["stable/project context"]
    assert grown > 400
    assert abs((after["/total re-sent on every call"] - before["/total re-sent on every call"])
               - grown) <= 2
    for key in ("tools/tool schemas", "stable/identity", "stable/environment"):
        assert before[key] == after[key] > 0
    assert not fake_provider.requests


def test_headings_inside_the_context_file_stay_in_its_section(fake_provider, hermes_home,
                                                              tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    text = ("Project notes.\n\n# build\nRun `make all`.\n\n# Skills (ours)\nnone\n\n"
            "# Environment\nlinux only\n\n# test\n`make check`\n")
    (tmp_path / "HERMES.md").write_text(text)
    rows = show(env, tmp_path)
    sections = [key.split("/", 1)[1] for key in rows if key.startswith("stable/")]
    assert "build" not in sections and "test" not in sections
    assert sections.count("skills") == 1 and sections.count("environment") == 1
    assert sections[0] == "identity" and sections[-1] == "environment"
    assert rows["stable/project context"] == context_row(text)


def test_session_total_includes_tool_schemas(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    (tmp_path / "HERMES.md").write_text("Use tabs.\n")
    done = hermes(["-q", "hi", "--json"], env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    session_id = json.loads(done.stdout)["session_id"]
    stored = show(env, tmp_path, "--session", session_id)
    fresh = show(env, tmp_path)
    assert stored["tools/tool schemas"] == fresh["tools/tool schemas"] > 500
    stable = sum(v for k, v in stored.items() if k.startswith("stable/"))
    assert stored["/total re-sent on every call"] >= stored["tools/tool schemas"] + stable - 10
    # nothing changed: only the frozen environment facts (session id, start time) differ
    assert abs(stored["/total re-sent on every call"] - fresh["/total re-sent on every call"]) <= 5
    # ... and the stored numbers are what was sent: system text and tools of the request
    sent = fake_provider.requests[0].body
    system_text = "\n\n".join(block["text"] for block in sent["system"])
    assert abs(estimate_tokens(system_text) - stable) <= len(stable_rows(stored))


def stable_rows(rows: dict[str, int]) -> list[str]:
    return [key for key in rows if key.startswith("stable/")]


def test_skills_flag_previews_the_ephemeral_layer(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    plain = show(env, tmp_path)
    assert not any(key.startswith("ephemeral/") for key in plain)
    for flag in ("--skills", "-s"):
        rows = show(env, tmp_path, flag, "debugging")
        (key,) = [key for key in rows if key.startswith("ephemeral/")]
        assert "debugging" in key and rows[key] > 50
        added = rows["/total re-sent on every call"] - plain["/total re-sent on every call"]
        assert added == rows[key]
    refused = hermes(["prompt", "show", "--session", "x", "--skills", "debugging"], env, cwd=tmp_path)
    assert refused.returncode == 1 and "--skills previews a new session" in refused.stderr
    assert not fake_provider.requests


def test_blocks_are_marked_by_who_shares_them(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    (tmp_path / "HERMES.md").write_text("Use tabs.\n" * 40)
    done = hermes(["prompt", "show"], env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = {m.group(1): int(m.group(3).replace(",", "")) for m in re.finditer(
        r"system: (installation|project|session)\s+(.+?)\s+([\d,]+)\s*$", done.stdout, re.M)}
    assert set(rows) == {"installation", "project", "session"}, done.stdout
    assert "all sessions of this installation" in done.stdout
    assert "this user + project" in done.stdout and "this session only" in done.stdout
    assert rows["project"] >= context_row("Use tabs.\n" * 40)
