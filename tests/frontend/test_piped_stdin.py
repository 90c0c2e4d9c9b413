"""`cat calc.py | hermes -q 'review this'`: piped stdin is part of the one-shot message,
by the rules of an @file; a silent non-terminal stdin does not hang the run."""

from __future__ import annotations

import json
import os
import time

import pytest

from frontend.mentions import MAX_FILE_BYTES, MentionError
from hermes_cli.oneshot import with_stdin
from hermes_cli.stdin_input import read_piped

CALC = "def add(a, b):\n    return a + b\n"


def _pipe(data: bytes | None):
    """The read end of a pipe carrying `data` (closed after it), or left open if None."""
    read_fd, write_fd = os.pipe()
    if data is not None:
        os.write(write_fd, data)
        os.close(write_fd)
    return os.fdopen(read_fd, "rb"), write_fd


def test_piped_text_joins_the_message():
    stream, _ = _pipe(CALC.encode())
    with stream:
        message = with_stdin("review this", stream)
    assert message.startswith("review this\n\n<stdin lines=\"2\">\n")
    assert CALC in message and message.endswith("</stdin>")


def test_redirected_file_and_empty_input(tmp_path):
    source = tmp_path / "calc.py"
    source.write_text(CALC)
    with source.open("rb") as stream:
        assert CALC in with_stdin("review this", stream)
    stream, _ = _pipe(b"")
    with stream:
        assert with_stdin("review this", stream) == "review this"


def test_binary_large_and_non_utf8_input_are_one_clear_error(tmp_path):
    for data, says in ((b"\0\1\2", "binary"), (b"\xff\xfe caf\xe9", "not UTF-8"),
                       (b"x" * (MAX_FILE_BYTES * 3), "over the")):
        redirected = tmp_path / "input"
        redirected.write_bytes(data)
        with redirected.open("rb") as stream, pytest.raises(MentionError, match=says):
            with_stdin("review this", stream)
    with redirected.open("rb") as stream:  # a huge input is refused, not read whole
        assert len(read_piped(stream).data) <= MAX_FILE_BYTES + 65_536


def test_a_silent_stdin_does_not_hang_the_run():
    stream, write_fd = _pipe(None)  # open, never written: cron, ssh without a tty
    try:
        started = time.monotonic()
        got = read_piped(stream, wait=0.2)
        assert got.silent and got.data == b""
        assert time.monotonic() - started < 5
    finally:
        os.close(write_fd)
        stream.close()


@pytest.mark.wire  # the CLI in a process, with a real pipe, against the fake provider
def test_cat_into_hermes_q_sends_the_file(fake_provider, hermes_home, tmp_path):
    from tests.helpers import anthropic_env, hermes

    result = hermes(["-q", "review this"], anthropic_env(hermes_home, fake_provider),
                    cwd=tmp_path, input_text=CALC, timeout=60)
    assert result.returncode == 0, result.stderr
    sent = json.dumps(fake_provider.requests[-1].body)
    assert "review this" in sent and "return a + b" in sent
