"""What reaches tool processes' environment (in-process)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.sandbox.backend import make_sandbox
from agent.sandbox.env import bad_entries, tool_env
from agent.sandbox.policy import SandboxSettings

pytestmark = pytest.mark.wire  # runs commands through the kernel sandbox


def test_only_the_allowlist_and_named_variables_are_kept() -> None:
    env = {"PATH": "/bin", "HOME": "/h", "LANG": "C", "LC_ALL": "C", "PWD": "/w", "TERM": "xterm",
           "OPENAI_API_KEY": "s", "ANTHROPIC_API_KEY": "s", "HERMES_API_KEY": "s",
           "GITHUB_TOKEN": "s", "DB_PASSWORD": "s", "MY_SECRET": "s", "AWS_SECRET_ACCESS_KEY": "s",
           "STRIPE_KEY": "s", "SSH_AUTH_SOCK": "/s", "NPM_TOKEN": "s", "REDIS_URL": "redis://:pw@h",
           "HERMES_DATABASE_URL": "postgresql://u:pw@db/h", "DATABASE_URL": "s", "DB_URL": "s",
           "MYAPP_A": "1", "MYAPP_B": "2", "MYAPPX": "s"}
    kept = tool_env(env, allow=["NPM_TOKEN", "MYAPP_*"])
    assert kept == {"PATH": "/bin", "HOME": "/h", "LANG": "C", "LC_ALL": "C", "TERM": "xterm",
                    "NPM_TOKEN": "s", "MYAPP_A": "1", "MYAPP_B": "2"}
    assert bad_entries(["OK_NAME", "PREFIX_*", "has space", "A=B", 3, "*"]) == ["'has space'", "'A=B'", "3", "'*'"]


def test_the_sandbox_environment_even_with_it_off(tmp_path: Path) -> None:
    box = make_sandbox(SandboxSettings(enabled=False), tmp_path, tmp_path)
    assert box.environment({"PLAIN_NAME": "v", "PATH": "/b", "TMPDIR": "/t"}) == {"PATH": "/b", "TMPDIR": "/t"}


def test_only_a_person_lets_a_command_out_of_the_sandbox(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    import pytest

    from agent.errors import ToolError
    from agent.sandbox.backend import backend
    from agent.tools import terminal
    from agent.tools.registry import ToolContext

    if backend()[0] is None:
        pytest.skip("no sandbox here")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    outside = tmp_path / "home" / "outside"  # shown read-only in the sandbox (home_allow)
    outside.mkdir(parents=True)
    ws = tmp_path / "ws"
    ws.mkdir()
    args = {"command": f"touch {outside}/f", "outside_sandbox": True}
    with pytest.raises(ToolError, match="only a person"):  # one-shot/gateway, even --yolo
        terminal.terminal(args, ToolContext(session_id="s", home=tmp_path / "hh", cwd=ws, yolo=True))
    asked: list[str] = []
    person = ToolContext(session_id="s", home=tmp_path / "hh", cwd=ws,
                         approve=lambda c, r: asked.append(r) or False,
                         sandbox=SandboxSettings(home_allow=(str(outside),)))
    with pytest.raises(ToolError, match="declined"):
        terminal.terminal(args, person)
    blocked = terminal.terminal({"command": f"touch {outside}/f"}, person)
    assert "outside_sandbox: true" in blocked and not (outside / "f").exists()
    person.approve = lambda c, r: True
    terminal.terminal(args, person)
    assert (outside / "f").exists() and asked == [terminal.ESCALATE]
