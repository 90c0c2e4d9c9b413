"""Scheduled-job bench: per-run cost of a daily job and of a 10-minute job run our way
(frontend/cron/run.py: pinned system bytes, the run's time last in the message, one cache
identity per installation and model, the keeper's TTL choice) against the same prompt sent
as a new ordinary session each run (its run id and start time in its system prompt, a
per-run cache identity - a fresh HERMES_HOME per run, as a per-run key would - and the
default 5m TTL). Real SDKs against the fake provider; its clock moves by the job's gap.

    .venv/bin/python bench/cron_cost.py

Costs are our pricing (agent/cost/pricing.py) of the usage the fake reported.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import tempfile  # noqa: E402

import yaml  # noqa: E402

from agent.agent import AIAgent  # noqa: E402
from bench import _docs  # noqa: E402
from frontend.config.settings import load_settings  # noqa: E402
from frontend.cron import control  # noqa: E402
from frontend.cron.jobs import JobSpec, create  # noqa: E402
from frontend.cron.run import lifetime, run  # noqa: E402
from frontend.outcome import TurnOutcome  # noqa: E402
from frontend.setup import Flags, agent_config  # noqa: E402
from memory import open_store  # noqa: E402
from memory.cron import CronStore  # noqa: E402
from tests.fakes import FakeProvider  # noqa: E402

PROMPT = ("Summarise the issues opened overnight in the tracker export under ./issues: "
          "group them by component, flag anything that blocks a release, and end with "
          "the three that most need an owner today. Keep it under 200 words.")
RUNS = 4
KINDS = (("daily", "0 8 * * *", 86_400), ("every 10 min", "every 10m", 600))
LEGS = (("anthropic", "claude-sonnet-5"), ("openai", "gpt-5"))
T0 = 1_796_000_040  # a whole minute


def _home(root: Path, name: str, fake: FakeProvider, provider: str, model: str) -> Path:
    home = root / name
    home.mkdir(parents=True, mode=0o700)
    url = fake.anthropic_base_url if provider == "anthropic" else fake.openai_base_url
    (home / "config.yaml").write_text(yaml.safe_dump({
        "provider": provider, "model": model, "api_key": "k", "base_url": url,
        "toolsets": ["file", "terminal", "memory", "skills", "search", "todo", "cron"]}),
        encoding="utf-8")
    return home


def ours(root: Path, fake: FakeProvider, provider: str, model: str, schedule: str,
         gap: int) -> tuple[list[float], str]:
    home = _home(root, f"ours-{provider}-{gap}", fake, provider, model)
    settings = load_settings(home)
    costs = []
    with open_store(home, None) as store:
        cron = CronStore(store.handle)
        job = create(settings, cron, JobSpec(schedule, PROMPT, "none", "digest", tz="UTC"),
                     cwd=root, now=T0)
        ttl = lifetime(agent_config(settings, Flags(), root), job, T0 + 60)
        for i in range(RUNS):
            now = T0 + 60 + i * gap
            claim = control.manual(cron, job, "bench", now)
            result = run(settings, store, claim, now)
            costs.append(result.cost or 0.0)
            fake.clock.advance(gap)
    return costs, ttl


def naive(root: Path, fake: FakeProvider, provider: str, model: str, gap: int) -> list[float]:
    costs = []
    for i in range(RUNS):
        home = _home(root, f"naive-{provider}-{gap}-{i}", fake, provider, model)
        settings = load_settings(home)
        config = agent_config(settings, Flags(), root)
        with open_store(home, None) as store:
            agent = AIAgent(config, store, clock=lambda i=i: float(T0 + 60 + i * gap))
            outcome = TurnOutcome()
            for event in agent.run_turn(PROMPT):
                outcome.feed(event)
            agent.close()
        costs.append(outcome.cost)
        fake.clock.advance(gap)
    return costs


def main(argv: list[str] | None = None) -> None:
    write_docs = "--write-docs" in (sys.argv[1:] if argv is None else argv)
    print(f"{RUNS} runs each; cost per run in USD (first run, then the mean of the rest)")
    rows: list[list[str]] = []
    for provider, model in LEGS:
        for label, schedule, gap in KINDS:
            with tempfile.TemporaryDirectory() as tmp, FakeProvider() as fake:
                mine, ttl = ours(Path(tmp), fake, provider, model, schedule, gap)
            with tempfile.TemporaryDirectory() as tmp, FakeProvider() as fake:
                theirs = naive(Path(tmp), fake, provider, model, gap)
            steady_mine = sum(mine[1:]) / (RUNS - 1)
            steady_theirs = sum(theirs[1:]) / (RUNS - 1)
            saving = 1 - steady_mine / steady_theirs if steady_theirs else 0.0
            print(f"{provider:9} {model:16} {label:13} ours: first ${mine[0]:.5f} then "
                  f"${steady_mine:.5f} (ttl {ttl}) | new session each run: first "
                  f"${theirs[0]:.5f} then ${steady_theirs:.5f} | saving {saving:.0%}")
            rows.append([f"{model} ({provider})", label, f"${mine[0]:.5f}",
                         f"${steady_mine:.5f} (ttl {ttl})", f"${theirs[0]:.5f}",
                         f"${steady_theirs:.5f}", f"{saving:.0%}"])
    if write_docs:
        _docs.write_section("cron-cost", (
            f"`bench/cron_cost.py`: {RUNS} runs of one job, cost per run in USD (the first, then "
            "the mean of the rest), our way (frontend/cron/run.py) against a new session each "
            "run; fake provider, its clock moved by the job's gap:\n\n" + _docs.table(
                ["model", "job", "ours: first", "then", "new session: first", "then", "saving"],
                rows)), bench="cron_cost")


if __name__ == "__main__":
    main()
