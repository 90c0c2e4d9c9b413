"""What reaches tool processes' environment (in-process)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.sandbox.backend import make_sandbox
from agent.sandbox.env import scrub
from agent.sandbox.policy import SandboxSettings, dotenv_names

pytestmark = pytest.mark.wire  # runs commands through the kernel sandbox


def test_secrets_are_removed_and_ordinary_variables_kept() -> None:
    env = {"PATH": "/bin", "HOME": "/h", "LANG": "C", "PWD": "/w", "TERM": "xterm",
           "OPENAI_API_KEY": "s", "ANTHROPIC_API_KEY": "s", "HERMES_API_KEY": "s",
           "GITHUB_TOKEN": "s", "DB_PASSWORD": "s", "MY_SECRET": "s", "AWS_SECRET_ACCESS_KEY": "s",
           "STRIPE_KEY": "s", "SSH_AUTH_SOCK": "/s", "FROM_DOTENV": "s", "NPM_TOKEN": "s",
           "HERMES_DATABASE_URL": "postgresql://u:pw@db/h", "DATABASE_URL": "s", "DB_URL": "s"}
    kept = scrub(env, dotenv_names=["FROM_DOTENV"], pass_env=["NPM_TOKEN"])
    assert kept == {"PATH": "/bin", "HOME": "/h", "LANG": "C", "PWD": "/w", "TERM": "xterm",
                    "NPM_TOKEN": "s"}


def test_dotenv_names_and_the_sandbox_environment(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("# c\nexport PLAIN_NAME=1\nOTHER = 2\n\nbad line\n")
    assert dotenv_names(tmp_path / ".env") == ("PLAIN_NAME", "OTHER")
    box = make_sandbox(SandboxSettings(enabled=False), tmp_path, tmp_path)
    assert box.environment({"PLAIN_NAME": "v", "X": "1"}) == {"X": "1"}  # even with it off


def test_only_a_person_lets_a_command_out_of_the_sandbox(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    import pytest

    from agent.errors import ToolError
    from agent.sandbox.backend import backend
    from agent.tools import terminal
    from agent.tools.registry import ToolContext

    if backend()[0] is None:
        pytest.skip("no sandbox here")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    ws = tmp_path / "ws"
    ws.mkdir()
    args = {"command": f"touch {outside}/f", "outside_sandbox": True}
    with pytest.raises(ToolError, match="only a person"):  # one-shot/gateway, even --yolo
        terminal.terminal(args, ToolContext(session_id="s", home=tmp_path / "hh", cwd=ws, yolo=True))
    asked: list[str] = []
    person = ToolContext(session_id="s", home=tmp_path / "hh", cwd=ws,
                         approve=lambda c, r: asked.append(r) or False)
    with pytest.raises(ToolError, match="declined"):
        terminal.terminal(args, person)
    blocked = terminal.terminal({"command": f"touch {outside}/f"}, person)
    assert "outside_sandbox: true" in blocked and not (outside / "f").exists()
    person.approve = lambda c, r: True
    terminal.terminal(args, person)
    assert (outside / "f").exists() and asked == [terminal.ESCALATE]
