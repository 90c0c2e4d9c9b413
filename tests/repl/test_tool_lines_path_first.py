"""A tool line names the file: arguments in the tool's own order (path first), the diff
under it says which file, `/expand` has every argument (fast tier: the real loop on the
scripted model, a string console)."""

from __future__ import annotations

import io
import json

from rich.console import Console

from agent.events import ToolFinished, ToolStarted
from hermes_cli.render.renderer import Renderer
from tests.fakes import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent


def test_write_and_patch_lines_show_the_path_and_the_diff_names_the_file(hermes_home, tmp_path):
    model = ScriptedModel()
    agent = scripted_agent(model, hermes_home, tmp_path, yolo=True)
    body = "".join(f"line {i}\n" for i in range(40))
    model.script(Reply(tool_calls=[ToolCall("write_file", {"path": "notes/todo.txt",
                                                           "content": body})]),
                 Reply(tool_calls=[ToolCall("patch", {"path": "notes/todo.txt",
                                                      "old_string": "line 3\n",
                                                      "new_string": "line three\n"})]),
                 Reply(text="done"))
    events = run(agent, "write it")
    agent.close()
    started = [e for e in events if isinstance(e, ToolStarted)]
    assert [e.summary[:26] for e in started] == ['{"path":"notes/todo.txt","'] * 2
    assert json.loads(started[0].arguments)["content"] == body  # all of it, for /expand
    out = io.StringIO()
    renderer = Renderer(Console(file=out, width=100, _environ={}, color_system=None))
    for event in events:
        if isinstance(event, ToolStarted | ToolFinished):
            renderer.handle(event)
    shown = out.getvalue().splitlines()
    patch_line = next(i for i, line in enumerate(shown) if line.startswith("⚙ patch"))
    assert "notes/todo.txt" in shown[patch_line]
    assert shown[patch_line + 1].strip() == "notes/todo.txt"  # the diff's file header
    assert "old_string" in renderer.last_arguments and "line three" in renderer.last_arguments
