"""Keys during a turn, on the screen: Ctrl-C ordering and Ctrl-D type-ahead (pty)."""

from __future__ import annotations

from tests.fakes import Reply

CODE = "Here:\n\n```python\n" + "".join(f"row_{i} = {i}\n" for i in range(1500)) + "```\n\nAfter.\n"


def test_ctrl_c_mid_code_block_prints_cancelled_last_and_keeps_the_fence(spawn_repl,
                                                                          fake_provider):
    # Fast chunks: a renderer that falls behind the stream still holds text when Ctrl-C
    # comes, and must not print it after "cancelled".
    fake_provider.script(Reply(text=CODE, delay=0.02, chunks=300))
    repl = spawn_repl()
    repl.send("show me code")
    repl.expect("row_")
    repl.child.sendintr()
    before = repl.expect("cancelled", timeout=30)
    after = repl.prompt(timeout=30)
    assert "row_" not in after and "After." not in after  # nothing printed after "cancelled"
    assert "```" not in before  # the cut block was shown as code, its fence closed
    lines = [line.strip() for line in before.splitlines()]
    assert "row_1 = 1" in lines and "row_2 = 2" in lines  # a line each, not one paragraph


def test_ctrl_d_typed_during_a_turn_quits_after_it(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="a slow answer " * 10, delay=0.1, chunks=20))
    repl = spawn_repl()
    repl.send("hi")
    repl.expect("a slow answer")
    repl.child.sendcontrol("d")
    repl.expect("resume with: hermes --resume ", timeout=30)
    assert repl.exit_code() == 0
    assert len(fake_provider.requests) == 1
