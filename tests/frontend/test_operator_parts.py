"""Doctor's runner and screen, config.yaml edits (fast tier: no process, no socket)."""

from __future__ import annotations

import threading

import pytest

from agent.errors import ConfigError
from hermes_cli.commands.config import files
from hermes_cli.commands.config.command import check_key
from hermes_cli.commands.doctor.report import (
    FAIL,
    INFO,
    OK,
    Check,
    Result,
    exit_code,
    render,
    run_all,
)


def test_checks_run_concurrently_and_a_slow_one_times_out():
    both = threading.Barrier(2, timeout=5)  # each waits for the other: only concurrently
    hang = threading.Event()

    def meet(name: str):
        return lambda: (both.wait(), Result(name, OK, "met"))[1]

    results = run_all([Check("a", meet("a")), Check("b", meet("b")),
                       Check("slow", lambda: (hang.wait(5), Result("slow", OK, ""))[1], 0.2),
                       Check("boom", lambda: 1 / 0)])
    hang.set()
    assert [(r.name, r.state) for r in results] == [("a", OK), ("b", OK), ("slow", FAIL),
                                                     ("boom", FAIL)]
    assert "no answer within 0.2 s" in results[2].detail


def test_information_never_fails_and_a_failure_shows_its_fix():
    lines: list[str] = []
    info = [Result("gateway", INFO, "none running"), Result("chat", INFO, "none")]
    assert exit_code(info) == 0
    failing = [*info, Result("provider", FAIL, "key rejected", "put a valid key")]
    render(failing, lines.append, "doctor")
    assert exit_code(failing) == 1
    assert any("fix: put a valid key" in line for line in lines)
    assert lines[-1] == "1 problem found"


def test_set_and_unset_keep_comments_and_order(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("# mine\nmodel: m  # the model\ncache:\n  ttl: 1h\n")
    data = files.load(path)
    files.set_key(data, "cache.keep_warm", "off")
    files.set_key(data, "retry.attempts", 3)
    files.save(path, data)
    assert path.read_text() == ("# mine\nmodel: m  # the model\ncache:\n  ttl: 1h\n"
                                "  keep_warm: off\nretry:\n  attempts: 3\n")
    data = files.load(path)
    assert files.unset_key(data, "retry.attempts") and not files.unset_key(data, "retry.x")
    files.save(path, data)
    assert "retry" not in path.read_text()


def test_unknown_keys_get_did_you_mean_and_free_sections_pass():
    check_key("prices.my-model.input")  # a model named by the user
    check_key("gateway.telegram.base_url")
    with pytest.raises(ConfigError) as err:
        check_key("budget.turn_token")
    assert "did you mean `budget.turn_tokens`?" in err.value.hint


def test_env_lines_are_kept_and_the_file_is_private(tmp_path):
    path = tmp_path / ".env"
    path.write_text("# keys\nOTHER=1\nANTHROPIC_API_KEY=old\n")
    files.set_env(path, "ANTHROPIC_API_KEY", "sk new")
    assert path.read_text() == "# keys\nOTHER=1\nANTHROPIC_API_KEY='sk new'\n"
    assert path.stat().st_mode & 0o777 == 0o600


def test_store_check_says_current_pending_or_newer(tmp_path):
    from frontend.config.settings import Settings
    from hermes_cli.commands.doctor.local import store
    from memory.store import SessionStore

    settings = Settings(home=tmp_path)
    assert store(settings).state == INFO  # no state.db yet: information
    SessionStore(tmp_path / "state.db").close()
    found = store(settings)
    assert found.state == OK and "at the current migration" in found.detail
    opened = SessionStore(tmp_path / "state.db")
    opened.db.execute("INSERT INTO _migrations (name, applied) VALUES ('9999_from_the_future', 'x')")
    opened.db.conn.commit()
    opened.close()
    newer = store(settings)
    assert newer.state == FAIL and "9999_from_the_future" in newer.detail and newer.fix


@pytest.mark.parametrize(("answers", "said"), [
    ({"provider": "", "api_key": "k"}, "--api-key needs --provider"),
    ({"provider": "nope", "api_key": "k"}, "unknown provider 'nope'"),
    ({"provider": "anthropic", "api_key": None}, "no API key given for anthropic"),
    ({"provider": "anthropic", "api_key": "k", "base_url": "ftp:/x"}, "--base-url is not a usable URL"),
    ({"provider": "anthropic", "api_key": "k", "network": "lan"}, "--network must be one of"),
])
def test_setup_refuses_answers_that_cannot_work(answers, said):
    from hermes_cli.commands.config.wizard import Answers, check

    with pytest.raises(ConfigError) as err:
        check(Answers(**answers))
    assert said in err.value.message and err.value.hint


@pytest.mark.wire  # the fallback probe opens a socket (to a port nothing answers on)
def test_the_gateway_line_reads_this_homes_scheduler_lease(tmp_path):
    """doctor says a gateway runs this home's jobs from the scheduler's lease row in the
    store (right on PostgreSQL and on any port), not from whether port 8642 answers."""
    from frontend.config.settings import Settings
    from frontend.setup import open_store
    from hermes_cli.commands.doctor import local
    from memory.cron import CronStore

    settings = Settings(home=tmp_path)
    url = "http://127.0.0.1:9/health"  # the discard port: nothing answers
    assert "none running" in local.gateway(settings, url=url).detail
    with open_store(settings) as store:
        CronStore(store.handle).beat("w-test")
    said = local.gateway(settings, url=url)
    assert said.state == INFO and "w-test" in said.detail and "scheduler" in said.detail
    with open_store(settings) as store:
        CronStore(store.handle).rest("w-test")
    assert "none running" in local.gateway(settings, url=url).detail
