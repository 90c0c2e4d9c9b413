"""Permission rules through the tool registry's dispatch (fast tier: no shell runs -
a terminal call either stops at the gate or would be refused without a person)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent.errors import ConfigError
from agent.permissions.rules import parse


def with_rules(ctx, raw, **kw):
    return replace(ctx, permissions=parse(raw, "config.yaml"), **kw)


def test_deny_on_a_path_glob_blocks_read_even_under_yolo(call, ctx):
    (ctx.cwd / "secrets").mkdir()
    (ctx.cwd / "secrets" / "k.txt").write_text("TOPSECRET")
    (ctx.cwd / "open.txt").write_text("fine")
    c = with_rules(ctx, {"deny": ["read_file(./secrets/**)"]}, yolo=True)
    denied = call("read_file", c, path="secrets/k.txt")
    assert not denied.ok and "TOPSECRET" not in denied.content
    assert "deny `read_file(./secrets/**)`" in denied.content and "config.yaml" in denied.content
    assert not call("read_file", c, path=str(ctx.cwd / "secrets" / "k.txt")).ok  # absolute too
    assert call("read_file", c, path="open.txt").ok


def test_deny_write_file_glob_and_deny_beats_allow(call, ctx):
    c = with_rules(ctx, {"allow": ["write_file"], "deny": ["write_file(*.lock)"]})
    assert not call("write_file", c, path="poetry.lock", content="x").ok
    assert not (ctx.cwd / "poetry.lock").exists()
    assert call("write_file", c, path="notes.md", content="x").ok


def test_deny_terminal_glob_on_command_beats_yolo(call, ctx):
    c = with_rules(ctx, {"deny": ["terminal(git push*)"]}, yolo=True)
    result = call("terminal", c, command="git push --force origin main")
    assert not result.ok and "deny `terminal(git push*)`" in result.content


def test_ask_asks_the_person_and_yolo_answers_it(call, ctx):
    asked = []
    c = with_rules(ctx, {"ask": ["patch"]}, approve=lambda what, why: asked.append((what, why)) or False)
    (ctx.cwd / "a.txt").write_text("old\n")
    declined = call("patch", c, path="a.txt", old_string="old", new_string="new")
    assert not declined.ok and "declined" in declined.content
    assert asked and asked[0][0] == "patch a.txt" and "ask `patch`" in asked[0][1]
    assert (ctx.cwd / "a.txt").read_text() == "old\n"
    nobody = with_rules(ctx, {"ask": ["patch"]})
    assert "no one is here" in call("patch", nobody, path="a.txt", old_string="old", new_string="new").content
    yolo = with_rules(ctx, {"ask": ["patch"]}, yolo=True)
    assert call("patch", yolo, path="a.txt", old_string="old", new_string="new").ok
    assert (ctx.cwd / "a.txt").read_text() == "new\n"


def test_allow_skips_the_danger_prompt_only_for_matching_commands(call, ctx):
    # no person and no --yolo: a dangerous command is refused before anything runs ...
    plain = call("terminal", ctx, command="rm -rf ~")
    assert not plain.ok and "looks dangerous" in plain.content
    # ... an allow rule skips that prompt (checked without running it: the verdict)
    c = with_rules(ctx, {"allow": ["terminal(git status*)"]})
    assert c.permissions.allows("terminal", {"command": "git status -s"}, ctx.cwd)
    assert not c.permissions.allows("terminal", {"command": "rm -rf ~"}, ctx.cwd)
    assert "looks dangerous" in call("terminal", c, command="rm -rf ~").content


def test_web_fetch_domain_rules_match_host_and_subdomains(ctx):
    rules = parse({"deny": ["web_fetch(domain:example.com)"]}, "config.yaml")
    assert rules.verdict("web_fetch", {"url": "https://docs.example.com/x"}, ctx.cwd).kind == "deny"
    assert rules.verdict("web_fetch", {"url": "https://example.org/"}, ctx.cwd) is None


def test_permissions_lists_rules_with_their_source():
    rules = parse({"allow": ["read_file"], "deny": ["terminal(rm *)"]}, "/h/config.yaml")
    assert rules.describe() == ["deny  terminal(rm *)  (/h/config.yaml)",
                                "allow read_file  (/h/config.yaml)"]


@pytest.mark.parametrize(("raw", "words"), [
    ({"deny": ["terminal(git status*"]}, "'terminal(git status*' in `permissions.deny` is malformed"),
    ({"deny": ["todo(x)"]}, "todo takes no pattern"),
    ({"ask": ["web_fetch(docs.python.org)"]}, "web_fetch takes `domain:HOST`"),
    ({"allow": [""]}, "is not a rule"),
    ({"allow": "terminal"}, "`permissions.allow` must be a list"),
    ({"block": ["terminal"]}, "unknown key(s) block"),
    (["terminal"], "must be a mapping"),
    ({"deny": ["read_file()"]}, "empty pattern"),
])
def test_a_malformed_rule_is_one_clear_config_error(raw, words):
    with pytest.raises(ConfigError) as caught:
        parse(raw, "config.yaml")
    assert words in str(caught.value) and "config.yaml" in str(caught.value)
