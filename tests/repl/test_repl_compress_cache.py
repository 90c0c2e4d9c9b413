"""/compress as a user runs it in the REPL: the preview states what the summary call
will read from the session's cache, and the summary call the fake Anthropic server
receives reads it."""

from __future__ import annotations

from tests.fakes import Reply, ToolCall
from tests.helpers import is_summary_call


def test_compress_in_the_repl_reads_the_session_cache(spawn_repl, fake_provider, tmp_path):
    work = tmp_path / "work"  # the REPL's working directory (spawn_repl)
    replies = []
    for n in range(6):
        (work / f"part{n}.py").write_text(
            "\n".join(f"def f{n}_{i}(value):\n    return value + {i}" for i in range(30)))
        replies += [Reply(text=f"reading part{n}.py",
                          tool_calls=[ToolCall("read_file", {"path": f"part{n}.py"})]),
                    Reply(text=f"answer {n}: part {n} is fine")]
    fake_provider.script(*replies)
    repl = spawn_repl()
    for n in range(6):
        repl.send(f"{n}: check part{n}.py")
        repl.expect(f"answer {n}: part {n} is fine")
        repl.prompt()
    repl.send("/compress --preview")
    repl.expect("Compression preview")
    preview = " ".join(repl.prompt().split())
    assert "read from the session's cache" in preview and "est. $" in preview
    fake_provider.script(Reply(text="## Goal\nCheck every part.\n## Done so far\nAll fine."))
    repl.send("/compress")
    repl.expect("Continuing in session")
    repl.prompt()
    (call,) = [r for r in fake_provider.requests if is_summary_call(r.body)]
    assert call.status == 200 and call.cache_read >= 0.8 * call.prompt_tokens
