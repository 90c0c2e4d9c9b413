"""Hook configuration, answers, custom commands and project trust: pure logic (fast tier;
no hook process runs here - tests/hooks/test_hooks_wire.py runs them)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from agent.errors import ConfigError
from agent.hooks.config import parse
from agent.hooks.runner import read_stdout
from frontend.config.schema import unknown_keys
from frontend.config.settings import Settings, load_settings
from frontend.custom_commands import load
from frontend.project import decide, find, is_trusted, layered
from frontend.setup import Flags, agent_config

GOOD = {"PreToolUse": [{"matcher": "terminal", "hooks": [{"type": "command", "command": "a", "timeout": 5}]},
                       {"matcher": "write_file|patch", "hooks": [{"command": "b"}]},
                       {"hooks": [{"type": "command", "command": "c"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "d"}]}]}


def test_matchers_are_regexes_on_the_whole_tool_name():
    hooks = parse(GOOD, "config.yaml")
    names = lambda tool: [c.command for c in hooks.commands("PreToolUse", tool)]  # noqa: E731
    assert names("terminal") == ["a", "c"]
    assert names("terminal_extra") == ["c"]  # `terminal` is not a prefix match
    assert names("patch") == ["b", "c"] and names("write_file") == ["b", "c"]
    assert [c.command for c in hooks.commands("Stop")] == ["d"]
    assert hooks.commands("PostToolUse", "terminal") == []
    assert hooks.commands("PreToolUse", "terminal")[0].timeout == 5
    assert hooks.commands("PreToolUse", "patch")[0].timeout == 60  # the default


def test_the_users_hooks_run_before_the_projects():
    user = parse({"Stop": [{"hooks": [{"command": "mine"}]}]}, "home/config.yaml")
    project = parse({"Stop": [{"hooks": [{"command": "theirs"}]}]}, "proj/.hermes/config.yaml")
    merged = user.merged(project)
    assert [(c.command, c.source) for c in merged.commands("Stop")] == [
        ("mine", "home/config.yaml"), ("theirs", "proj/.hermes/config.yaml")]
    assert not parse(None, "x") and bool(merged)


MALFORMED = [
    ("a list", "`hooks` must be a mapping"),
    ({"PreTool": []}, "unknown event 'PreTool'"),
    ({"PreToolUse": {"matcher": "x"}}, "`hooks.PreToolUse` must be a list"),
    ({"PreToolUse": ["terminal"]}, "hooks.PreToolUse[0] must be a mapping"),
    ({"PreToolUse": [{"matcher": "(", "hooks": [{"command": "x"}]}]}, "is not a regular expression"),
    ({"PreToolUse": [{"matcher": 3, "hooks": [{"command": "x"}]}]}, "`matcher` must be text"),
    ({"PreToolUse": [{"matcher": "terminal"}]}, "`hooks` must be a non-empty list"),
    ({"PreToolUse": [{"hooks": [{"command": ""}]}]}, "hooks[0]: `command` must be a command line"),
    ({"PreToolUse": [{"hooks": [{"type": "prompt", "command": "x"}]}]}, "`type` 'prompt' is not supported"),
    ({"PreToolUse": [{"hooks": [{"command": "x", "timeout": 0}]}]}, "`timeout` must be seconds"),
    ({"PreToolUse": [{"hooks": [{"command": "x", "timeout": True}]}]}, "`timeout` must be seconds"),
    ({"PreToolUse": [{"hooks": [{"command": "x", "when": 1}]}]}, "unknown key 'when'"),
]


@pytest.mark.parametrize(("raw", "said"), MALFORMED)
def test_a_malformed_hook_entry_is_one_clear_config_error(raw, said, tmp_path):
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"provider": "anthropic", "api_key": "k",
                                                          "hooks": raw}))
    with pytest.raises(ConfigError) as caught:
        agent_config(load_settings(tmp_path), Flags(), tmp_path)
    message = caught.value.message
    assert said in message and message.startswith(str(tmp_path / "config.yaml")), message
    assert "\n" not in message and caught.value.hint


def test_hooks_and_permissions_are_known_settings():
    assert unknown_keys({"hooks": {}, "permissions": {}, "gateway": {"hooks": True}}) == []


@pytest.mark.parametrize(("stdout", "blocked", "reason", "context"), [
    ("", False, "", ""),
    ("plain text context\n", False, "", "plain text context"),
    ('{"decision": "block", "reason": "tests fail"}', True, "tests fail", ""),
    ('{"continue": false, "stopReason": "halt"}', True, "halt", ""),
    ('{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}',
     True, "no", ""),
    ('{"hookSpecificOutput": {"permissionDecision": "allow"}}', False, "", ""),  # never widens
    ('{"decision": "approve"}', False, "", ""),
    ('{"hookSpecificOutput": {"additionalContext": "ctx"}}', False, "", "ctx"),
    ('{"decision": "block"}', True, "(hook `h` gave no reason)", ""),
    ("{not json", False, "", "{not json"),
])
def test_json_output_is_read_as_claude_codes(stdout, blocked, reason, context):
    answer = read_stdout(stdout, "h")
    assert (answer.blocked, answer.reason, answer.context) == (blocked, reason, context)


def test_system_message_is_a_warning_for_the_user():
    assert read_stdout('{"systemMessage": "heads up"}', "h").warnings == ("heads up",)


# ---- custom commands -------------------------------------------------------------------
def test_custom_commands_expand_arguments_and_never_shadow_built_ins(tmp_path):
    home, proj = tmp_path / "home", tmp_path / "proj" / ".hermes" / "commands"
    (home / "commands").mkdir(parents=True)
    proj.mkdir(parents=True)
    (home / "commands" / "review.md").write_text(
        "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS carefully.\n")
    (home / "commands" / "fix.md").write_text("Fix the failing tests.")
    (home / "commands" / "model.md").write_text("shadow /model")
    (home / "commands" / "Bad Name.md").write_text("x")
    (proj / "fix.md").write_text("Fix it the project's way.")
    warnings: list[str] = []
    table = load(home, proj, warnings)
    assert [c.name for c in table.commands] == ["fix", "review"]
    review = table.get("/review")
    assert review.description == "Review a file" and review.hint == "FILE" and review.scope == "user"
    assert review.expand(" a.py ") == "Review a.py carefully."
    assert table.get("fix").scope == "project"  # the project's wins over the user's
    assert table.get("fix").expand("quickly") == "Fix it the project's way.\n\nquickly"
    assert table.get("model") is None
    assert any("/model is a built-in command" in w and "never shadows" in w for w in warnings)
    assert any("Bad Name.md" in w for w in warnings) and len(warnings) == 2


def test_a_command_file_linking_out_of_its_folder_is_refused(tmp_path):
    (tmp_path / "secret.txt").write_text("the secret")
    folder = tmp_path / "home" / "commands"
    folder.mkdir(parents=True)
    os.symlink(tmp_path / "secret.txt", folder / "leak.md")
    warnings: list[str] = []
    assert load(tmp_path / "home", None, warnings).get("leak") is None
    assert len(warnings) == 1 and "leak.md" in warnings[0]


# ---- project trust -----------------------------------------------------------------------
def _project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / ".hermes" / "commands").mkdir(parents=True)
    (root / ".hermes" / "commands" / "ship.md").write_text("Ship it.")
    (root / ".hermes" / "config.yaml").write_text(yaml.safe_dump({
        "hooks": {"PreToolUse": [{"hooks": [{"command": "touch pwned"}]}]},
        "permissions": {"deny": ["terminal(git push*)"]}, "model": "not-here"}))
    return root


def test_untrusted_project_settings_are_ignored_with_one_notice(tmp_path):
    root, home = _project(tmp_path), tmp_path / "home"
    home.mkdir()
    warnings: list[str] = []
    assert decide(home, root / "src", None, warnings) is None
    assert len(warnings) == 1 and "not trusted" in warnings[0] and str(root) in warnings[0]
    config = layered(Settings(home), "oneshot", None, warnings)
    assert config["hooks"] is None and config["permissions"].rules == ()
    assert config["commands"].get("ship") is None


def test_trusting_once_is_remembered_and_applies_the_projects_settings(tmp_path):
    root, home = _project(tmp_path), tmp_path / "home"
    home.mkdir()
    asked: list[str] = []
    found = decide(home, root / "src", lambda project, _changed: asked.append(project.summary()) or True, [])
    assert found is not None and found.root == root.resolve()
    assert asked == ["1 hook, 1 permission rule, 1 command"]
    assert is_trusted(home, find(root / "src"))
    assert oct((home / "trusted_projects.json").stat().st_mode & 0o777) == "0o600"
    assert str(root.resolve()) in json.loads((home / "trusted_projects.json").read_text())["projects"]
    assert decide(home, root, None, []) == found  # not asked again
    warnings: list[str] = []
    config = layered(Settings(home), "cli", found, warnings)
    assert [c.command for c in config["hooks"].commands("PreToolUse", "terminal")] == ["touch pwned"]
    assert [r.source for r in config["permissions"].rules] == [str(root / ".hermes" / "config.yaml")]
    assert config["commands"].get("ship").scope == "project"
    assert len(warnings) == 1 and "`model` is ignored in a project's settings" in warnings[0]


def test_the_gateway_runs_no_hooks_unless_configured(tmp_path):
    raw = {"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}
    assert layered(Settings(tmp_path, raw), "gateway", None, [])["hooks"] is None
    assert layered(Settings(tmp_path, raw), "cli", None, [])["hooks"]
    on = dict(raw, gateway={"hooks": True})
    assert layered(Settings(tmp_path, on), "gateway", None, [])["hooks"]


def test_a_hook_says_sandbox_host_to_run_outside_and_nothing_else():
    hooks = parse({"Stop": [{"hooks": [{"command": "notify-send done", "sandbox": "host"},
                                       {"command": "make test"}]}]}, "config.yaml")
    host, boxed = hooks.commands("Stop")
    assert host.host and not boxed.host
    assert hooks.on_host() == ["Stop [*] notify-send done  (config.yaml)  - sandbox: host, "
                               "runs outside the sandbox"]
    with pytest.raises(ConfigError) as raised:
        parse({"Stop": [{"hooks": [{"command": "x", "sandbox": "off"}]}]}, "config.yaml")
    assert "`sandbox` must be `host`" in str(raised.value.message)
