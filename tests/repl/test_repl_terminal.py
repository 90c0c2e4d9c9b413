"""`hermes` without a terminal, and long answers on a real (tmux) terminal screen."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pexpect
import pytest

from hermes_cli.repl.main import PROMPT_MARKER
from tests.fakes import Reply
from tests.helpers import HERMES, anthropic_env, hermes, wait_until


def test_piped_stdin_is_one_message_answered_on_stdout(hermes_home, fake_provider, tmp_path):
    """Piped stdin used to start the REPL on a non-terminal: prompt_toolkit warnings,
    escape codes and toolbars in the output file."""
    fake_provider.script(Reply(text="the piped answer"))
    env = anthropic_env(hermes_home, fake_provider)
    result = hermes([], env, cwd=tmp_path, input_text="line one\nline two\n", timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "the piped answer\n"
    assert "\x1b" not in result.stdout and "Traceback" not in result.stderr
    sent = fake_provider.last.body["messages"][-1]["content"][0]["text"]
    assert sent.startswith("line one\nline two")


def test_empty_piped_stdin_is_one_clear_error(hermes_home, fake_provider, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    result = hermes([], env, cwd=tmp_path, input_text="", timeout=30)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith("hermes: error: no message on stdin")
    assert lines[1].startswith("  hint: ") and len(lines) == 2
    assert fake_provider.requests == []


def test_a_terminal_with_redirected_stdout_is_refused(hermes_home, fake_provider, tmp_path):
    """`hermes > out.txt` in a terminal drew the whole REPL into the file, leaving a blank
    screen that still waited for input."""
    out = tmp_path / "out.txt"
    command = " ".join(map(shlex.quote, HERMES)) + f" > {shlex.quote(str(out))}"
    child = pexpect.spawn("bash", ["-c", command], env=anthropic_env(hermes_home, fake_provider),
                          encoding="utf-8", timeout=20)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert "hermes: error: the interactive REPL needs a terminal on stdout" in child.before
    assert "hint: " in child.before and "Traceback" not in child.before
    assert out.read_text() == ""


# -- a real screen: tmux --------------------------------------------------------------


class Screen:
    """`hermes` in a detached tmux session of 120x40: what a user really sees."""

    def __init__(self, socket: Path, env: dict[str, str], cwd: Path) -> None:
        self.base = ["tmux", "-S", str(socket)]
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()
                           if k in ("HERMES_HOME", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                                    "NO_COLOR", "PATH", "HOME", "TERM", "HERMES_WARM"))
        command = f"cd {shlex.quote(str(cwd))} && env -i {exports} TERM=xterm-256color " + \
            " ".join(map(shlex.quote, HERMES))
        subprocess.run([*self.base, "new-session", "-d", "-x", "120", "-y", "40", command],
                       check=True)

    def text(self, history: bool = False) -> str:
        args = [*self.base, "capture-pane", "-p", "-t", "0"]
        if history:
            args += ["-S", "-"]
        return subprocess.run(args, capture_output=True, text=True, check=True).stdout

    def wait_for(self, text: str, count: int = 1, timeout: float = 40) -> None:
        """Wait until `text` shows `count` times (screen and scrollback)."""
        wait_until(lambda: self.text(history=True).count(text) >= count, timeout=timeout,
                   what=f"{text!r} on screen", interval=0.1)

    def type(self, line: str) -> None:
        subprocess.run([*self.base, "send-keys", "-t", "0", "-l", line], check=True)
        subprocess.run([*self.base, "send-keys", "-t", "0", "Enter"], check=True)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_a_long_reply_is_shown_once_and_whole_on_a_short_screen(hermes_home, fake_provider,
                                                                  tmp_path):
    """A 120-line block in a 40-line terminal: while it streams the newest lines stay in
    view (the live region used to show its top and "..."), and in the end every line is on
    the screen or in the scrollback exactly once."""
    rows = [f"row_{i:03d} = {i}" for i in range(120)]
    answer = "Start of the answer.\n\n```python\n" + "\n".join(rows) + "\n```\n\nEnd of it."
    fake_provider.script(Reply(text=answer, delay=0.025, chunks=60))
    (tmp_path / "work").mkdir()
    screen = Screen(tmp_path / "tmux.sock", anthropic_env(hermes_home, fake_provider), tmp_path / "work")
    try:
        screen.wait_for(PROMPT_MARKER)
        screen.type("a long one please")
        screen.wait_for("row_060")  # mid-stream: the newest rows are visible...
        live = screen.text()
        assert "earlier lines above" in live and "row_000" not in live
        screen.wait_for(PROMPT_MARKER, count=2)  # the turn has ended
        final = screen.text(history=True)
        for row in rows:
            assert final.count(row) == 1, (row, final)
        assert final.count("Start of the answer.") == 1 and final.count("End of it.") == 1
        assert "earlier lines above" not in final
    finally:
        screen.close()
