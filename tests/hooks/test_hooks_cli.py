"""One-shot never asks about a project's own settings: an untrusted project's hooks do not
run (one notice), a trusted one's do (the real CLI against the fake provider)."""

from __future__ import annotations

import pytest
import yaml

from frontend.project import find, trust
from tests.fakes import Reply
from tests.helpers import anthropic_env, hermes

pytestmark = pytest.mark.wire


def test_untrusted_project_hooks_do_not_run(fake_provider, hermes_home, tmp_path):
    project = tmp_path / "cloned"
    (project / ".git").mkdir(parents=True)
    (project / ".hermes").mkdir()
    marker = project / "hook-ran"  # hooks run in the sandbox: the workspace is theirs
    (project / ".hermes" / "config.yaml").write_text(yaml.safe_dump(
        {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}}))
    env = anthropic_env(hermes_home, fake_provider)
    fake_provider.script(Reply(text="an answer"))
    result = hermes(["-q", "hi"], env, cwd=project)
    assert result.returncode == 0 and "an answer" in result.stdout, result.stderr
    assert not marker.exists()
    notices = [line for line in result.stderr.splitlines() if "not trusted" in line]
    assert len(notices) == 1 and str(project / ".hermes") in notices[0], result.stderr

    trust(hermes_home, find(project))
    fake_provider.script(Reply(text="another"))
    result = hermes(["-q", "hi"], env, cwd=project)
    assert result.returncode == 0 and "not trusted" not in result.stderr, result.stderr
    assert marker.exists()
