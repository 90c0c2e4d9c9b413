"""One run of a job (frontend/cron/run.py) on the scripted model: a stored session of
source cron, the same tools and system bytes every run with the run's time last in the
message, [SILENT], a broken job skipped without a model call, the daily cap, the model
pinned (no fallback), approvals refused."""

from __future__ import annotations

from dataclasses import replace

from frontend.cron import control
from frontend.cron.jobs import JobSpec, create
from frontend.cron.run import config_for, run
from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedModel

T0 = 1_796_000_040


def _job(home, tmp_path, **spec):
    fields = {"schedule": "0 8 * * *", "prompt": "Summarise the overnight issues.",
              "deliver": "none", "name": "digest", "tz": "UTC", **spec}
    return create(home.settings(), home.cron, JobSpec(**fields), cwd=tmp_path, now=T0)


def _run(home, job, model, now):
    claim = control.manual(home.cron, job, "test", now)
    return run(home.settings(), home.store, claim, now, lend=lambda _settings: model)


def test_runs_are_stored_sessions_sending_the_same_prefix(home, tmp_path):
    job = _job(home, tmp_path)
    model = ScriptedModel(Reply("three issues"), Reply("two issues"))
    first = _run(home, job, model, T0 + 86_400)
    second = _run(home, job, model, T0 + 2 * 86_400)
    assert (first.status, first.text, second.text) == ("ok", "three issues", "two issues")
    assert first.session_id != second.session_id
    row = home.store.get_session(first.session_id)
    assert row["source"] == "cron" and row["title"].startswith("cron digest:")
    one, two = model.requests
    assert [s.canonical() for s in one.tools] == [s.canonical() for s in two.tools]
    assert one.system == two.system  # no run id or run time in the system prompt
    assert first.session_id not in repr(one.system) and "cron job digest" in repr(one.system)
    assert "cronjob" in {s.name for s in one.tools}  # the tool set of every session
    text_one, text_two = one.messages[-1].content, two.messages[-1].content
    assert text_one.startswith(job.prompt) and text_two.startswith(job.prompt)
    assert "2026-" in text_one and text_one != text_two  # only the date line differs
    assert one.cache.key == two.cache.key  # one cache identity, never per run
    runs = home.cron.runs(job.id)
    assert [r["status"] for r in runs] == ["ok", "ok"] and runs[0]["session_id"] == second.session_id


def test_a_silent_reply_delivers_nothing(home, tmp_path):
    job = _job(home, tmp_path, deliver=f"file:{tmp_path / 'out.md'}")
    result = _run(home, job, ScriptedModel(Reply("[SILENT] nothing new")), T0 + 60)
    assert result.status == "silent"
    assert home.cron.runs(job.id)[0]["delivery"] is None


def test_a_job_broken_since_is_skipped_without_a_model_call(home, tmp_path):
    job = _job(home, tmp_path)
    del home.config["api_key"]
    home.write()
    model = ScriptedModel(Reply("never"))
    result = _run(home, job, model, T0 + 60)
    assert result.status == "skipped" and "missing API key" in result.error
    assert model.requests == []
    assert home.cron.get("digest").last_error == result.error


def test_the_daily_cap_skips_a_run_without_a_model_call(home, tmp_path):
    job = _job(home, tmp_path, daily_usd=0.01)
    claim = control.manual(home.cron, job, "test", T0 + 60)
    home.cron.finish(claim.run_id, job.id, "ok", cost=0.02)
    model = ScriptedModel(Reply("never"))
    result = _run(home, job, model, T0 + 120)
    assert result.status == "skipped" and "daily cap reached" in result.error
    assert model.requests == []


def test_the_run_config_pins_the_model_and_refuses_approvals(home, tmp_path):
    home.config.update(fallback_model="claude-haiku-5", yolo=True)
    home.write()
    job = _job(home, tmp_path, max_usd=0.25, allow=("terminal(git pull*)",))
    config = config_for(home.settings(), job, 0.25)
    assert (config.provider.provider, config.provider.model) == (job.provider, job.model)
    assert config.fallback_model is None and config.yolo is False
    assert config.budget.session_usd == 0.25 and config.source == "cron"
    assert any(r.text == "terminal(git pull*)" for r in config.permissions.rules)
    assert config.cwd == home.path / "workspaces" / "cron-digest"
    other = config_for(home.settings(), replace(job, id=99, name="other"), None)
    assert other.pinned_env != config.pinned_env


def test_the_cache_lifetime_follows_the_gap_to_the_next_fire(home, tmp_path):
    """The keeper's arithmetic (agent/cache/job_ttl.py): a 1h write pays when the next fire is
    past 5 minutes and well within the hour; a daily or 3-minute job keeps 5m."""
    from frontend.cron.run import lifetime

    config = config_for(home.settings(), _job(home, tmp_path), None)
    for schedule, name, ttl in (("every 10m", "ten", "1h"), ("every 20m", "twenty", "1h"),
                                ("every 3m", "three", "5m"), ("0 8 * * *", "daily", "5m"),
                                ("in 2h", "once", "5m")):
        job = _job(home, tmp_path, schedule=schedule, name=name)
        assert lifetime(config, job, T0 + 30) == ttl, schedule


def test_the_daily_cap_counts_what_a_run_still_going_has_spent(home, tmp_path):
    """The cap did not hold across a burst - a run still going had
    recorded no cost yet, so the next one saw the whole day's budget left."""
    job = _job(home, tmp_path, daily_usd=0.01)
    going = control.manual(home.cron, job, "test", T0 + 60)
    home.store.create_session("going", model=job.model, provider=job.provider, system_prompt="s")
    home.cron.started(going.run_id, "going")
    home.store.add_usage("going", uncached=1000, output=100, cost_usd=0.02)
    model = ScriptedModel(Reply("never"))
    result = _run(home, job, model, T0 + 61)
    assert result.status == "skipped" and "daily cap reached" in result.error
    assert model.requests == []


def test_overlapping_runs_together_stay_within_the_daily_cap(home, tmp_path):
    """Two runs of one job overlapped: each took what the cap had left when it started, so
    together they could spend twice that. Now a run holds its limit while it runs: the
    second gets what is left after the first's limit, and none when the first holds it all."""
    job = _job(home, tmp_path, daily_usd=1.0, max_usd=0.4)
    first = control.manual(home.cron, job, "test", T0 + 60)
    since = T0 - T0 % 86_400
    assert home.cron.reserve(first.run_id, job.id, since, 1.0, 0.4, T0 + 60) == 0.4
    second = control.manual(home.cron, job, "test", T0 + 61)
    assert home.cron.reserve(second.run_id, job.id, since, 1.0, 0.4, T0 + 61) == 0.4
    third = control.manual(home.cron, job, "test", T0 + 62)
    assert abs(home.cron.reserve(third.run_id, job.id, since, 1.0, 0.4, T0 + 62) - 0.2) < 1e-9
    model = ScriptedModel(Reply("never"))
    result = _run(home, job, model, T0 + 63)  # a fourth, while three hold the whole dollar
    assert result.status == "skipped" and "held by a run still going" in result.error
    assert model.requests == []
    home.cron.finish(first.run_id, job.id, "ok", cost=0.1)  # it spent less than it held
    fifth = control.manual(home.cron, job, "test", T0 + 64)
    assert abs(home.cron.reserve(fifth.run_id, job.id, since, 1.0, 0.4, T0 + 64) - 0.3) < 1e-9


def test_an_orphaned_run_holds_only_what_it_spent(home, tmp_path):
    """A run whose worker died stays `running`; after HOLD its limit is no longer held
    (only its recorded spend counts), so the job is not starved for the rest of the day."""
    from memory.cron import HOLD

    job = _job(home, tmp_path, daily_usd=1.0)
    since = T0 - T0 % 86_400
    dead = control.manual(home.cron, job, "gone-worker", T0 + 60)
    assert home.cron.reserve(dead.run_id, job.id, since, 1.0, None, T0 + 60) == 1.0
    later = control.manual(home.cron, job, "test", T0 + 60 + HOLD + 1)
    assert home.cron.reserve(later.run_id, job.id, since, 1.0, None, T0 + 60 + HOLD + 1) == 1.0
