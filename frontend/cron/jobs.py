"""Creating a job with every check done once, and the checks a run repeats.

A job is refused at creation, with one clear line, when its configuration cannot work:
a bad schedule or timezone, no key for its provider, a model nobody makes, an unknown
skill, a delivery target that cannot be reached from here, a taken name. The model is
resolved and pinned at creation (`provider` + `model` columns): a run uses exactly that
model or does not run - never a fallback. `problem` repeats the checks before each run:
a job broken since (a key removed, a target gone) is skipped with one recorded error
and no model call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.cron import targets
from agent.cron.define import created_in, insert, pick_name
from agent.cron.schedule import parse
from agent.errors import ConfigError
from agent.permissions.rules import parse as parse_rules
from frontend.config.provider_choice import resolve_provider
from frontend.config.sandbox_setup import sandbox_settings
from frontend.config.settings import Settings
from memory.cron import CronStore, Job

DEFAULT_DAILY_USD = 5.0  # a job's spend per day unless `cron.daily_usd` or --daily-usd


@dataclass(frozen=True)
class JobSpec:
    """What a person (or the agent) asked for."""

    schedule: str
    prompt: str
    deliver: str = "origin"
    name: str | None = None
    model: str | None = None
    provider: str | None = None
    max_usd: float | None = None
    daily_usd: float | None = None
    workdir: str | None = None
    skills: tuple[str, ...] = ()
    tz: str | None = None
    allow: tuple[str, ...] = ()  # permission rules (allow) the job's runs may use
    owner: str | None = None  # who created it (a chat's owner id; None: the operator)
    origin: str | None = None  # the chat a job asked for from a chat was asked in


def create(settings: Settings, cron: CronStore, spec: JobSpec, *, cwd: Path,
           now: float | None = None) -> Job:
    """Check `spec` and store the job (ConfigError: what is wrong and the fix)."""
    moment = time.time() if now is None else now
    name = pick_name(cron, spec.name, spec.prompt)
    schedule = parse(spec.schedule, spec.tz, now=moment)
    choice = resolve_provider(settings, provider=spec.provider, model=spec.model)
    model_problem = unknown_model(choice.provider, choice.model)
    if model_problem:
        raise ConfigError(model_problem, "`hermes models` lists the models each provider makes")
    for amount, flag in ((spec.max_usd, "--max-usd"), (spec.daily_usd, "--daily-usd")):
        if amount is not None and amount <= 0:
            raise ConfigError(f"{flag} must be more than 0 USD, got {amount:g}", f"e.g. {flag} 0.50")
    workdir = None
    if spec.workdir:
        folder = Path(spec.workdir).expanduser()
        folder = folder if folder.is_absolute() else cwd / folder
        if not folder.is_dir():
            raise ConfigError(f"--workdir {spec.workdir}: no such directory", "create it first")
        workdir = str(folder.resolve())
    _skills_exist(settings, spec.skills)
    rules = {"allow": list(spec.allow)} if spec.allow else None
    parse_rules(rules, f"job {name}")  # a bad rule is one line now, not at a run
    box = sandbox_settings(settings, False, "gateway" if spec.owner is not None else "cli")
    permissions = created_in(rules, box.enabled, box.network)
    deliver = targets.resolve(spec.deliver, origin=spec.origin, home=settings.home, name=name,
                              cwd=cwd, roots=writable_roots(settings, cwd, workdir, spec.owner),
                              owner=spec.owner)
    targets.check(deliver, ready(settings))
    daily = spec.daily_usd if spec.daily_usd is not None else float(settings.number(
        "cron.daily_usd", DEFAULT_DAILY_USD, lo=0, above=True))
    return insert(cron, schedule, {
        "name": name, "prompt": spec.prompt, "deliver": deliver, "provider": choice.provider,
        "model": choice.model, "max_usd": spec.max_usd, "daily_usd": daily, "workdir": workdir,
        "skills": list(spec.skills), "permissions": permissions, "owner": spec.owner}, moment)


def writable_roots(settings: Settings, cwd: Path, workdir: str | None,
                   owner: str | None) -> tuple[Path, ...]:
    """Where a job's file target may be (agent/cron/files.py): the creating session's
    workspace (`cwd`), the job's --workdir and `sandbox.writable`; a tenant's: its
    workspace only."""
    if owner is not None:
        return (cwd,)
    listed = settings.get("sandbox.writable", [], kind=list)
    extra = tuple(Path(str(p)).expanduser() for p in listed if isinstance(p, str) and p.strip())
    return (cwd, *((Path(workdir),) if workdir else ()), *extra)


def unknown_model(provider: str, model: str) -> str | None:
    """Why `provider` cannot serve `model` (None: it can): a catalogue provider given a
    model nobody is known to make, or one another provider makes."""
    from agent.providers import models, registry

    spec = registry.find(provider)
    if spec is None or spec not in registry.catalogued():
        return None  # a router or local server: it names its own models
    owner = models.known_provider(model)
    if owner is None:
        return f"unknown model {model!r} for {registry.label(provider)}"
    if owner != provider:
        return f"{model} is made by {registry.label(owner)}, not {registry.label(provider)}"
    return None


def _skills_exist(settings: Settings, names: tuple[str, ...]) -> None:
    if not names:
        return
    from skills.loader import discover  # the skills index is read only for a job with skills

    catalog = discover(settings.home)
    missing = [n for n in names if catalog.get(n) is None]
    if missing:
        known = ", ".join(sorted(catalog.skills)) or "none"
        raise ConfigError(f"unknown skill(s): {', '.join(missing)}", f"available skills: {known}")


def problem(settings: Settings, job: Job) -> str | None:
    """Why a run of `job` cannot work now (None: it can): checked before any model call."""
    try:
        choice = resolve_provider(settings, provider=job.provider, model=job.model)
    except ConfigError as exc:
        return exc.message
    if (choice.provider, choice.model) != (job.provider, job.model):
        return f"the job's model {job.model} ({job.provider}) is not reachable here"
    return unknown_model(job.provider, job.model) or targets.problem(
        job.deliver, ready(settings), hermes_home=settings.home, owner=job.owner)


def ready(settings: Settings) -> frozenset[str]:
    """The chat platforms this installation can deliver to (agent/cron/targets.py)."""
    return targets.ready(lambda platform: settings.get(f"gateway.{platform}") is not None)


def json_of(job: Job) -> dict[str, Any]:
    """A job as the agent's tool and `--json` show it."""
    return {"id": job.id, "name": job.name, "schedule": job.schedule, "tz": job.tz,
            "prompt": job.prompt, "deliver": job.deliver, "model": job.model,
            "paused": job.paused, "next_run": job.next_run, "last_status": job.last_status}
