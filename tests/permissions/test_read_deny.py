"""A deny on reading a path holds for every tool that reads (fast tier: the Python search
backend, the registry's dispatch, the mention reader)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent.permissions.rules import parse
from frontend.mentions import MentionError, attach

DENIES = [{"deny": ["read_file(./secrets/**)", "search_files(./secrets/**)"]},
          {"deny": ["read_file(./secrets/**)"]}, {"deny": ["search_files(./secrets/**)"]}]


@pytest.fixture
def secrets(ctx, monkeypatch):
    monkeypatch.setenv("HERMES_SEARCH_BACKEND", "python")  # no process in the fast tier
    (ctx.cwd / "secrets").mkdir()
    (ctx.cwd / "secrets" / "k.txt").write_text("TOPSECRET=1\n")
    (ctx.cwd / "notes.txt").write_text("TOPSECRET is a word in the notes\n")
    return ctx


@pytest.mark.parametrize("raw", DENIES)
def test_a_search_of_the_workspace_skips_the_denied_files(call, secrets, raw):
    c = replace(secrets, permissions=parse(raw, "config.yaml"), yolo=True)
    found = call("search_files", c, pattern="TOPSECRET")
    assert found.ok and "notes.txt" in found.content  # the search itself still runs
    assert "TOPSECRET=1" not in found.content and "k.txt" not in found.content
    names = call("search_files", c, pattern="*.txt", target="files")
    assert "notes.txt" in names.content and "k.txt" not in names.content


@pytest.mark.parametrize("raw", DENIES)
def test_each_reading_tool_refuses_the_denied_path(call, secrets, raw):
    c = replace(secrets, permissions=parse(raw, "config.yaml"), yolo=True)
    for tool, args in [("read_file", {"path": "secrets/k.txt"}),
                       ("search_files", {"pattern": "TOPSECRET", "path": "secrets"}),
                       ("search_files", {"pattern": "TOPSECRET", "path": "secrets/k.txt"}),
                       ("patch", {"path": "secrets/k.txt", "old_string": "TOPSECRET=1",
                                  "new_string": "TOPSECRET=1"})]:  # found or not: an oracle
        result = call(tool, c, **args)
        assert not result.ok and "TOPSECRET=1" not in result.content, (tool, args)
        assert "permission rule deny" in result.content


def test_web_fetch_reads_no_file_url(call, secrets):
    c = replace(secrets, permissions=parse(DENIES[1], "config.yaml"), yolo=True)
    result = call("web_fetch", c, url=f"file://{secrets.cwd}/secrets/k.txt")
    assert not result.ok and "TOPSECRET=1" not in result.content


def test_a_mention_of_a_denied_file_is_refused_and_others_attach(secrets):
    rules = parse(DENIES[1], "config.yaml")
    with pytest.raises(MentionError) as caught:
        attach("look at @secrets/k.txt", secrets.cwd, rules)
    assert "deny `read_file(./secrets/**)`" in str(caught.value)
    assert "in the notes" in attach("look at @notes.txt", secrets.cwd, rules).text


def test_an_editor_s_mention_or_file_link_of_a_denied_file_is_refused(secrets):
    from acp import schema as s

    from hermes_acp.prompts import message_of

    rules = parse(DENIES[2], "config.yaml")
    for block in (s.TextContentBlock(type="text", text="see @secrets/k.txt"),
                  s.ResourceContentBlock(type="resource_link", name="k.txt",
                                         uri=f"file://{secrets.cwd}/secrets/k.txt")):
        with pytest.raises(MentionError):
            message_of([block], secrets.cwd, rules)
    assert "in the notes" in message_of([s.TextContentBlock(type="text", text="@notes.txt")],
                                        secrets.cwd, rules)[0]
