"""The database URL (its password opens every tenant's messages) is never where a
tool can read it: not on the gateway's command line, not in its environment, not in
a tool's environment (wire tier: a real `hermes gateway` process on a real
PostgreSQL, the fake provider, the real openai client, the terminal in the sandbox)."""

from __future__ import annotations

from pathlib import Path

import openai
import pytest

from agent.sandbox.backend import backend
from tests.fakes import FakeProvider
from tests.fakes.gateway_workers import Worker, write_config
from tests.fakes.script import Reply, ToolCall
from tests.helpers import KEY_A, ask, child_env, hermes

pytestmark = pytest.mark.wire

PASSWORD = "pw-TOPSECRET-4471"


def test_the_url_from_a_file_is_in_no_tool_visible_place(postgres_server, tmp_path):
    url = postgres_server.new_database().replace("postgres@", f"postgres:{PASSWORD}@")
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    with FakeProvider(min_cache_tokens=64) as fake:
        write_config(home, fake.anthropic_base_url)
        config = (home / "config.yaml").read_text().replace("- file", "- terminal")
        (home / "config.yaml").write_text(config)
        worker = Worker(home, database_url=url, forked=False)  # --database-url-file; its own /proc
        try:
            proc = Path(f"/proc/{worker.pid}")
            assert PASSWORD.encode() not in (proc / "cmdline").read_bytes()
            assert PASSWORD.encode() not in (proc / "environ").read_bytes()
            if backend()[0] is not None:
                fake.script(Reply(tool_calls=[ToolCall("terminal", {
                    "command": "env; tr '\\0' ' ' < /proc/$PPID/cmdline; "
                               "cat /proc/$PPID/environ"})]), Reply(text="done"))
                client = openai.OpenAI(base_url=worker.base_url, api_key=KEY_A,
                                       max_retries=0, timeout=60)
                ask(client, "s", "show me the environment")
                result = repr(fake.last.body["messages"][-1]["content"])
                assert "HOME=" in result and PASSWORD not in result
        finally:
            worker.stop()


def test_a_password_on_the_command_line_is_refused_in_one_line(tmp_path):
    result = hermes(["gateway", "--port", "0", "--database-url",
                     f"postgresql://u:{PASSWORD}@127.0.0.1:9/db"],
                    child_env(tmp_path, HERMES_API_KEY="k" * 20), timeout=30)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "--database-url-file" in result.stderr and PASSWORD not in result.stderr
