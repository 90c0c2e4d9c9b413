"""Tool outcomes under the ⚙ line: output tail, read excerpt, coloured diff (string console)."""

from __future__ import annotations

import io

from rich.console import Console

from agent.events import ToolFinished, ToolStarted
from hermes_cli.render.renderer import Renderer
from hermes_cli.render.tools import DIFF_LINES, has_more, outcome


def _shown(event: ToolFinished, color: bool = False) -> str:
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=color, _environ={},
                      color_system="standard" if color else None)
    renderer = Renderer(console)
    renderer.handle(ToolStarted(event.call_id, event.name, "{}"))
    renderer.handle(event)
    return out.getvalue()


def test_a_command_shows_its_output_tail_and_a_failing_exit_code():
    output = "".join(f"line {i} [not/markup]\n" for i in range(30)) + "[exit code 2]"
    text = _shown(ToolFinished("c1", "terminal", True, 0.5, "line 0", output))
    lines = text.splitlines()
    assert lines[0].startswith("⚙ terminal")
    assert "26 earlier lines (/expand shows it all)" in lines[1]
    assert [line.strip() for line in lines[2:6]] == [f"line {i} [not/markup]" for i in range(26, 30)]
    assert lines[6].strip() == "exit code 2"


def test_a_file_read_shows_a_line_count_and_an_excerpt():
    content = "\n".join(f"{i:>6}|row {i}" for i in range(1, 51)) + "\n[lines 1-50 of 80; continue with offset=51]"
    text = _shown(ToolFinished("c1", "read_file", True, 0.01, "", content))
    assert "50 lines read [lines 1-50 of 80" in text
    assert "row 1" in text and "row 3" in text and "row 4\n" not in text


def test_a_patch_shows_a_coloured_diff_collapsed():
    diff = "--- a/m.py\n+++ b/m.py\n@@ -1,20 +1,20 @@\n" + "".join(
        f"-old {i}\n+new {i}\n" for i in range(10))
    event = ToolFinished("c1", "patch", True, 0.01, "Patched m.py", "Patched m.py", diff)
    plain = _shown(event)
    assert "+++" not in plain and "@@ -1,20 +1,20 @@" in plain
    assert "-old 0" in plain and "new 9" not in plain
    assert f"{20 + 1 - DIFF_LINES} more diff lines (/expand shows it all)" in plain
    coloured = _shown(event, color=True)
    assert "\x1b[32m  +new 0" in coloured and "\x1b[31m  -old 0" in coloured
    assert has_more(event)
    full = outcome(event, full=True)
    assert "+new 9" in full.plain


def test_a_failed_tool_shows_no_preview():
    assert outcome(ToolFinished("c1", "terminal", False, 0.1, "Error", "Error: boom")) is None


def test_an_mcp_result_shows_its_first_lines():
    answer = "".join(f"row {i}\n" for i in range(10))
    event = ToolFinished("m1", "mcp__db__query", True, 0.2, "row 0", answer)
    lines = _shown(event).splitlines()
    assert [line.strip() for line in lines[1:5]] == [f"row {i}" for i in range(4)]
    assert "6 more lines (/expand shows it all)" in lines[5]
    assert has_more(event)
    full = outcome(event, full=True)
    assert full is not None and "row 9" in full.plain
