"""A sandboxed command whose pre-exec step fails (so nothing ran) is started again: once
in the same session, then once in a fresh one; a third failure is the error (wire tier:
the command is a real process)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator

import pytest

from agent.tools.terminal import _started

pytestmark = pytest.mark.wire


class FlakyBox:
    """A sandbox whose confinement fails the first `failures` times (our own stand-in)."""

    def __init__(self, failures: int) -> None:
        self.failures, self.launches, self.closed = failures, 0, 0

    @contextlib.contextmanager
    def launch(self, cwd: object) -> Iterator[object]:
        self.launches += 1
        failing = self.launches <= self.failures

        def confine() -> None:
            if failing:
                raise OSError("setns: Invalid argument")
        yield confine

    def environment(self) -> dict[str, str]:
        return dict(os.environ)

    def close(self) -> None:
        self.closed += 1


@pytest.mark.parametrize(("failures", "closed"), [(0, 0), (1, 0), (2, 1)])
def test_a_failed_start_is_tried_again(tmp_path, failures, closed):
    box = FlakyBox(failures)
    out_r, out_w = os.pipe()
    try:
        proc = _started("echo ran", tmp_path, out_w, out_w, box)  # type: ignore[arg-type]
        assert proc.wait(timeout=10) == 0
    finally:
        os.close(out_w)
    assert os.read(out_r, 100) == b"ran\n"
    os.close(out_r)
    assert box.launches == failures + 1 and box.closed == closed


def test_three_failures_are_the_error(tmp_path):
    box = FlakyBox(3)
    with pytest.raises(subprocess.SubprocessError):
        _started("echo never", tmp_path, 1, 1, box)  # type: ignore[arg-type]
    assert box.launches == 3 and box.closed == 1
