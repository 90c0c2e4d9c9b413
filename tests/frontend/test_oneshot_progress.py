"""`hermes -q` progress lines say why a tool call failed or was refused (fast tier)."""

from __future__ import annotations

from agent.events import ToolFinished
from hermes_cli.oneshot import progress


def test_a_refused_call_says_why(capsys):
    progress(ToolFinished("c1", "terminal", False, 0.01,
                          "refused: `rm -rf /` deletes files recursively"))
    progress(ToolFinished("c2", "read_file", True, 0.02, "1| hello"))
    err = capsys.readouterr().err.splitlines()
    assert err[0] == ("  <- terminal failed (0.01s): refused: `rm -rf /` deletes files "
                      "recursively")
    assert err[1] == "  <- read_file ok (0.02s)"
