"""When the sandbox's pre-exec step fails in the child, the parent learns why
(subprocess alone says only "Exception occurred in preexec_fn.")."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.backend import backend, make_sandbox
from agent.sandbox.policy import SandboxSettings
from agent.sandbox.preexec_report import reporting

pytestmark = [pytest.mark.wire, pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")]


def test_a_failed_preexec_carries_its_cause_to_the_parent(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    box = make_sandbox(SandboxSettings(network="on"), tmp_path / "hh", ws)
    try:
        with box.launch(ws) as confine:  # the session starts; one command runs
            assert subprocess.Popen(["true"], preexec_fn=confine).wait(timeout=20) == 0
        assert box.session is not None
        null = os.open("/dev/null", os.O_RDONLY)  # the session's mount namespace fd breaks
        os.dup2(null, box.session.fds["mnt"])  # type: ignore[attr-defined]
        os.close(null)
        confine = box.backend.preexec(box.session, str(ws))  # type: ignore[union-attr]
        with pytest.raises(subprocess.SubprocessError) as raised, reporting(confine) as reported:
            subprocess.Popen(["true"], preexec_fn=reported)  # past launch's own check (test_session_fds)
        said = str(raised.value)
        assert "setns mnt" in said and "Invalid argument" in said, said
        assert "OSError" in said, said
        assert "is /dev/null, was mnt:[" in said, said  # which descriptor, and what it is now
    finally:
        box.close()
