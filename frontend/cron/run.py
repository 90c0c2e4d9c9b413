"""One run of a job: a fresh stored session of the job (source "cron": `hermes sessions
list` shows it, `hermes -r ID` resumes it), its pinned model, its workspace, its budget.

Cache discipline (docs/CACHING.md): every run sends the same bytes before its
date - the tools (the session's usual set, fixed from its start), the system prompt
(the environment facts pinned to the job: `AgentConfig.pinned_env`, so no run id or run
time in it; they also say the run is unattended and how to stay silent), and the job's
prompt - then the run's date and time, last, in the user message. The OpenAI `prompt_cache_key` is the installation's
per provider and model (agent.prompts.prefix.cache_key), never per run, so every run of a
job (and every job sharing tools and system) is routed to the same cached prefix.

Approvals: nobody is there to answer, so a call that would ask is refused (no `--yolo`,
ever), unless the job was created with permission rules that allow it (they join the
configuration's `permissions:`, whose deny rules still win).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from agent.cache.idle_policy import Rates
from agent.cache.job_ttl import job_ttl
from agent.cancel import CancelToken
from agent.config import AgentConfig
from agent.cost.budget import Limits
from agent.cron.define import CREATED_IN, narrower, rules_of
from agent.cron.due import next_run
from agent.errors import HermesError
from agent.permissions.rules import Rules
from agent.permissions.rules import parse as parse_rules
from agent.usage import usd
from frontend.config.settings import Settings
from frontend.cron import jobs
from frontend.outcome import TurnOutcome
from memory.cron import Claim, CronStore, Job
from memory.store import SessionStore
from memory.tenants import tenant_name

SILENT = "[SILENT]"
# in the pinned environment facts (the system prompt: cached with it, the same every run)
NOTE = (f"a scheduled run, nobody is waiting at a screen: work on your own, and if there "
        f"is nothing worth reporting this time, reply with {SILENT} alone")


@dataclass(frozen=True)
class RunResult:
    """How a run ended: status ok | error | skipped | silent, the answer to deliver."""

    status: str
    text: str = ""
    cost: float | None = None
    session_id: str | None = None
    error: str | None = None


def message(job: Job, when: float) -> str:
    """The run's user message: the job's prompt (the same bytes every run), then the
    run's own date and time."""
    local = datetime.fromtimestamp(when, UTC).astimezone(ZoneInfo(job.tz))
    return f"{job.prompt}\n\n(This run: {local.strftime('%A %Y-%m-%d %H:%M %Z')})"


def workdir(home: Path, job: Job) -> Path:
    """The job's workspace: a tenant's job its owner's (gateway/workspaces.py names it
    the same way), else --workdir, else HERMES_HOME/workspaces/cron-NAME (0700)."""
    if job.owner is not None:
        path = home / "workspaces" / tenant_name(job.owner)
    elif job.workdir:
        return Path(job.workdir)
    else:
        path = home / "workspaces" / f"cron-{job.name}"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def day_start(job: Job, now: float) -> float:
    """Midnight of `now`'s day in the job's zone (the daily cap's day)."""
    local = datetime.fromtimestamp(now, UTC).astimezone(ZoneInfo(job.tz))
    return local.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()


def config_for(settings: Settings, job: Job, limit: float | None) -> AgentConfig:
    """The run's configuration: the job's pinned provider and model (no fallback), its
    skills, workspace, permissions and spend limit; never yolo. A gateway tenant's job
    runs as that tenant, with a gateway session's power and no more: its owner (memory, session search, the store's owner column, spend), its
    workspace, the gateway's sandbox (no home allowlist, its network), the MCP servers
    offered to its key only."""
    from frontend.setup import Flags, agent_config

    tenant = job.owner is not None
    base = agent_config(settings, Flags(provider=job.provider, model=job.model,
                                        skills=job.skills), workdir(settings.home, job),
                        source="gateway" if tenant else "cron")
    if tenant:
        base = replace(base, owner=job.owner, mcp_servers=tuple(
            s for s in base.mcp_servers if s.offered_to("gateway", job.owner)))
    rules = rules_of(job.permissions)
    extra = parse_rules(rules, f"job {job.name}") if rules else Rules()
    then = (job.permissions or {}).get(CREATED_IN)
    if isinstance(then, dict):  # never more than the session that made the job had
        base = replace(base, sandbox=replace(
            base.sandbox, enabled=base.sandbox.enabled or bool(then.get("sandbox", True)),
            network=narrower(base.sandbox.network, str(then.get("network", "")))))
    own = base.permissions.rules if isinstance(base.permissions, Rules) else ()
    created = datetime.fromtimestamp(job.created, UTC).strftime("%Y-%m-%d %H:%M UTC")
    return replace(base, source="cron", fallback_model=None, yolo=False, keep_warm="off",
                   budget=Limits(turn_tokens=base.budget.turn_tokens, session_usd=limit),
                   permissions=Rules((*own, *extra.rules)),
                   pinned_env=(f"{created} (scheduled job {job.name})",
                               f"cron job {job.name}, id {job.id}: {NOTE}"))


def lifetime(config: AgentConfig, job: Job, now: float) -> str:
    """The run's cache TTL (agent/cache/job_ttl.py: 1h when the next fire is a few minutes to
    half an hour away) where the provider takes cache markers; else the configured one."""
    from agent.cost import pricing
    from agent.providers.registry import cache_model

    if cache_model(job.provider, job.model).style != "markers":
        return config.cache_ttl
    price = pricing.prices(job.model, config.prices)
    if price is None or not price.input:
        return config.cache_ttl
    rates = Rates(read=price.cache_read / price.input, write_5m=price.cache_write_5m / price.input,
                  write_1h=price.cache_write_1h / price.input)
    following = next_run(job, now + 1)
    return job_ttl(None if following is None else following - now, 1.0, rates)


def run(settings: Settings, store: SessionStore, claim: Claim, now: float | None = None,  # noqa: PLR0913
        lend: object = None, cancel: CancelToken | None = None) -> RunResult:
    """Run `claim` to its end and record it (never raises for the job's own failures)."""
    cron = CronStore(store.handle)
    job = claim.job
    moment = time.time() if now is None else now
    result = _run(settings, store, cron, claim, moment, lend, cancel)
    cron.finish(claim.run_id, job.id, result.status, output=result.text, cost=result.cost,
                error=result.error, delivery=job.deliver if result.status == "ok" else None)
    return result


def _run(settings: Settings, store: SessionStore, cron: CronStore, claim: Claim,  # noqa: PLR0913
         now: float, lend: object, cancel: CancelToken | None) -> RunResult:
    from frontend.factory import make_agent

    job = claim.job
    why = jobs.problem(settings, job)
    if why is not None:  # one recorded error, no model call
        return RunResult("skipped", error=why)
    since = day_start(job, now)
    limit = cron.reserve(claim.run_id, job.id, since, job.daily_usd, job.max_usd, now)
    if limit is not None and limit <= 0:  # the cap is spent, or held by runs still going
        spent = cron.spent(job.id, since=since)
        held = "" if spent >= (job.daily_usd or 0.0) else ", the rest held by a run still going"
        return RunResult("skipped", error=f"daily cap reached: {usd(spent)} of "
                                          f"{usd(job.daily_usd or 0.0)} spent today{held}")
    try:
        config = config_for(settings, job, limit)
        config = replace(config, cache_ttl=lifetime(config, job, now), ttl_explicit=True)
        agent = make_agent(config, store, lend=lend)
    except HermesError as exc:
        return RunResult("skipped", error=exc.message)
    try:
        cron.started(claim.run_id, agent.session_id)
        store.update_session(agent.session_id, title=f"cron {job.name}: {_title(job.prompt)}")
        outcome = TurnOutcome()
        for event in agent.run_turn(message(job, now), cancel):
            outcome.feed(event)
    finally:
        agent.close()
    cost = outcome.cost if outcome.cost_known else None
    error = outcome.error
    if error is not None:
        return RunResult("error", outcome.answer, cost, agent.session_id, error.message)
    text = outcome.answer.strip()
    if text.startswith(SILENT):
        return RunResult("silent", text, cost, agent.session_id)
    return RunResult("ok", text, cost, agent.session_id)


def _title(prompt: str) -> str:
    line = " ".join(prompt.split())
    return line if len(line) <= 50 else line[:47] + "..."
