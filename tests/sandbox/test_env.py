"""What reaches tool processes' environment (in-process)."""

from __future__ import annotations

from pathlib import Path

from agent.sandbox.backend import make_sandbox
from agent.sandbox.env import scrub
from agent.sandbox.policy import SandboxSettings, dotenv_names


def test_secrets_are_removed_and_ordinary_variables_kept() -> None:
    env = {"PATH": "/bin", "HOME": "/h", "LANG": "C", "PWD": "/w", "TERM": "xterm",
           "OPENAI_API_KEY": "s", "ANTHROPIC_API_KEY": "s", "HERMES_API_KEY": "s",
           "GITHUB_TOKEN": "s", "DB_PASSWORD": "s", "MY_SECRET": "s", "AWS_SECRET_ACCESS_KEY": "s",
           "STRIPE_KEY": "s", "SSH_AUTH_SOCK": "/s", "FROM_DOTENV": "s", "NPM_TOKEN": "s"}
    kept = scrub(env, dotenv_names=["FROM_DOTENV"], pass_env=["NPM_TOKEN"])
    assert kept == {"PATH": "/bin", "HOME": "/h", "LANG": "C", "PWD": "/w", "TERM": "xterm",
                    "NPM_TOKEN": "s"}


def test_dotenv_names_and_the_sandbox_environment(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("# c\nexport PLAIN_NAME=1\nOTHER = 2\n\nbad line\n")
    assert dotenv_names(tmp_path / ".env") == ("PLAIN_NAME", "OTHER")
    box = make_sandbox(SandboxSettings(enabled=False), tmp_path, tmp_path)
    assert box.environment({"PLAIN_NAME": "v", "X": "1"}) == {"X": "1"}  # even with it off
