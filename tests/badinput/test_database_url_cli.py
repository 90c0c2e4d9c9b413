"""A bad HERMES_DATABASE_URL / `database_url` is one line (what is wrong, the fix),
exit non-zero, no traceback, password never printed - for a one-shot and the sessions
command alike."""

from __future__ import annotations

import pytest

from tests.helpers import child_env, hermes

pytestmark = pytest.mark.wire  # the real CLI in a subprocess


@pytest.mark.parametrize(("url", "said"), [
    ("mysql://bob:hunter2@db.example/x", "HERMES_DATABASE_URL must be a postgresql:// URL"),
    ("postgresql://bob:hunter2@127.0.0.1:70000/x", "is malformed"),
    ("postgresql://bob:hunter2@127.0.0.1:1/x", "cannot use the PostgreSQL database"),
])
@pytest.mark.parametrize("args", [["-q", "hello"], ["sessions", "list"]])
def test_bad_database_url_is_one_line(hermes_home, tmp_path, url, said, args):
    (hermes_home / "config.yaml").write_text("provider: anthropic\napi_key: k\n")
    result = hermes(args, child_env(hermes_home, HERMES_DATABASE_URL=url), cwd=tmp_path,
                    timeout=60)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr, result.stderr
    assert said in result.stderr and "hunter2" not in result.stderr + result.stdout
    assert result.stderr.strip().splitlines()[0].startswith("hermes: error:")


def test_bad_config_database_url_names_the_setting(hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text(
        "provider: anthropic\napi_key: k\ndatabase_url: 'sqlite:///elsewhere.db'\n")
    result = hermes(["-q", "hello"], child_env(hermes_home), cwd=tmp_path, timeout=60)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "config.yaml: `database_url` must be a postgresql:// URL" in result.stderr
