"""Tool names in rules and hook matchers: ours, MCP's, Claude Code's as aliases; any
other name is a config error with a "did you mean" (fast tier, except the one hook that
runs a real process)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent.errors import ConfigError
from agent.hooks.config import parse as parse_hooks
from agent.hooks.events import SessionHooks
from agent.hooks.runner import Environment
from agent.permissions.gate import PLAN_SAFE
from agent.permissions.names import BUILTIN
from agent.permissions.rules import parse
from agent.tools.registry import discover


def test_the_known_names_are_the_registry_s():
    assert {t.name for t in discover()} == BUILTIN
    assert PLAN_SAFE <= BUILTIN  # plan mode's exceptions name real tools (it said `delegate`)


def test_claude_code_names_deny_our_tools(call, ctx):
    c = replace(ctx, permissions=parse({"deny": ["Bash", "Write"]}, "settings.yaml"), yolo=True)
    assert "deny `terminal`" in call("terminal", c, command="echo hi").content
    refused = call("write_file", c, path="a.txt", content="x")
    assert not refused.ok and "deny `write_file`" in refused.content
    assert not (ctx.cwd / "a.txt").exists()
    (ctx.cwd / "b.txt").write_text("fine")
    assert call("read_file", c, path="b.txt").ok  # the rules name only those two


def test_claude_code_prefix_rule_ports_as_written(ctx):
    rules = parse({"deny": ["Bash(git push:*)"], "allow": ["Edit(./src/**)"]}, "settings.yaml")
    assert rules.verdict("terminal", {"command": "cd . && git push"}, ctx.cwd).kind == "deny"
    assert rules.verdict("patch", {"path": "src/a.py"}, ctx.cwd).kind == "allow"
    assert rules.verdict("write_file", {"path": "src/a.py"}, ctx.cwd).kind == "allow"  # Edit: every edit
    assert rules.describe()[0] == "deny  terminal(git push:*)  (settings.yaml; written Bash(git push:*))"


@pytest.mark.parametrize(("entry", "hint"), [("termnal", "did you mean terminal?"),
                                              ("read_fil(./x)", "did you mean read_file?"),
                                              ("bash", "did you mean Bash?"),
                                              ("Shell", "")])
def test_an_unknown_tool_name_is_a_config_error(entry, hint):
    with pytest.raises(ConfigError) as caught:
        parse({"deny": [entry]}, "/h/config.yaml")
    text = str(caught.value)
    assert text.startswith("/h/config.yaml") and "`permissions.deny`" in text and "no tool is called" in text
    assert hint in text


def test_claude_code_only_tools_are_named_and_skipped_in_matchers(ctx):
    with pytest.raises(ConfigError) as caught:
        parse({"deny": ["NotebookEdit"]}, "settings.yaml")
    assert "Claude Code tool hermes does not have" in str(caught.value)
    hooks = parse_hooks({"PostToolUse": [{"matcher": "Edit|MultiEdit|Write|NotebookEdit",
                                          "hooks": [{"command": "fmt"}]}]}, "settings.yaml")
    assert [c.command for c in hooks.commands("PostToolUse", "write_file")] == ["fmt"]
    rules = parse({"deny": ["Read(//etc/**)"]}, "settings.yaml")  # Claude Code's absolute form
    assert rules.verdict("read_file", {"path": "/etc/hosts"}, ctx.cwd) is not None


def test_mcp_tool_and_server_names_stay_valid(ctx):
    rules = parse({"deny": ["mcp__docs__search"], "ask": ["mcp__web"]}, "config.yaml")
    assert rules.verdict("mcp__docs__search", {}, ctx.cwd).kind == "deny"
    assert rules.verdict("mcp__web__fetch", {}, ctx.cwd).kind == "ask"  # a whole server
    assert rules.verdict("mcp__webby__x", {}, ctx.cwd) is None


@pytest.mark.parametrize(("matcher", "hint"), [("termnal", "did you mean terminal?"),
                                                ("Bash|Writ", "did you mean Write?"),
                                                ("term.*x", "matches no tool")])
def test_an_unknown_hook_matcher_is_a_config_error(matcher, hint):
    with pytest.raises(ConfigError) as caught:
        parse_hooks({"PreToolUse": [{"matcher": matcher, "hooks": [{"command": "true"}]}]}, "/h/config.yaml")
    assert str(caught.value).startswith("/h/config.yaml: hooks.PreToolUse[0]") and hint in str(caught.value)


def test_claude_code_matchers_select_our_tools():
    hooks = parse_hooks({"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "a"}]},
                                        {"matcher": "Edit|Write", "hooks": [{"command": "b"}]},
                                        {"matcher": "mcp__.*", "hooks": [{"command": "c"}]}]}, "s")
    assert [c.command for c in hooks.commands("PreToolUse", "terminal")] == ["a"]
    assert [c.command for c in hooks.commands("PreToolUse", "patch")] == ["b"]
    assert [c.command for c in hooks.commands("PreToolUse", "write_file")] == ["b"]
    assert [c.command for c in hooks.commands("PreToolUse", "read_file")] == []


@pytest.mark.wire
def test_a_bash_matcher_hook_blocks_a_terminal_call(call, ctx):
    hooks = parse_hooks({"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"command": "echo 'no shell' >&2; exit 2"}]}]}, "settings.yaml")
    c = replace(ctx, hooks=SessionHooks(hooks, Environment(ctx.cwd)), yolo=True)
    result = call("terminal", c, command="touch made.txt")
    assert "no shell" in result.content and not (ctx.cwd / "made.txt").exists()
