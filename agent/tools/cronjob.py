"""cronjob: the agent schedules, lists and removes jobs (agent/cron, memory/cron).

A job is a standing permission - it runs on its own, on this session's model, until
removed - so `create` shows the person the schedule, target and prompt and asks first
(`ctx.approve`; --yolo skips the question), and is refused where nobody can be asked.
`deliver` defaults to `origin`: the chat the job was asked in (a gateway chat), else a
file in HERMES_HOME/cron/output. A chat sees and removes only its own jobs.
The tool is part of the default tool set from a session's first request, so adding it
changed every session's tool bytes once, never during a session.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from agent.cron import targets
from agent.cron.define import created_in, insert, pick_name, powers
from agent.cron.schedule import parse
from agent.errors import ConfigError, ToolError
from agent.tools.registry import Tool, ToolContext, require
from memory.cron import CronStore, Job

DAILY_USD = 5.0  # a job's spend per day (frontend/cron/jobs.py: `cron.daily_usd` for the CLI's)
ASKED = "a scheduled job runs on its own, on this model, at every fire until it is removed"


def cronjob(args: dict[str, Any], ctx: ToolContext) -> str:
    store = ctx.services.store
    if store is None:
        raise ToolError("scheduled jobs need the session store, which this session has not got")
    cron = CronStore(store.handle)
    action = require(args, "action")
    try:
        if action == "create":
            return _create(args, ctx, cron)
        if action == "list":
            jobs = _mine(cron, ctx)
            return json.dumps([_shown(j) for j in jobs]) if jobs else "no scheduled jobs"
        if action == "remove":
            ident = require(args, "name")
            job = next((j for j in _mine(cron, ctx) if ident in (j.name, str(j.id))), None)
            if job is None:
                raise ToolError(f"no job {ident!r} of yours (list them with action 'list')")
            cron.remove(job.id)
            return f"removed job {job.name}"
    except ConfigError as exc:
        raise ToolError(f"{exc.message} ({exc.hint})" if exc.hint else exc.message) from None
    raise ToolError("action must be create, list or remove")


def _create(args: dict[str, Any], ctx: ToolContext, cron: CronStore) -> str:
    assert ctx.services.store is not None
    prompt = require(args, "prompt")
    now = time.time()
    schedule = parse(require(args, "schedule"), None, now=now)
    name = pick_name(cron, args.get("name"), prompt)
    owner = ctx.services.owner
    writable = () if owner is not None or ctx.sandbox is None else tuple(
        Path(p).expanduser() for p in ctx.sandbox.writable)
    deliver = targets.resolve(str(args.get("deliver") or "origin"),
                              origin=f"origin:{owner}" if owner else None, home=ctx.home,
                              name=name, cwd=ctx.cwd, roots=(ctx.cwd, *writable), owner=owner)
    targets.check(deliver, targets.ready())
    row = ctx.services.store.get_session(ctx.session_id)
    if row is None:
        raise ToolError("this session is not stored yet; try again after its first answer")
    where = "its own workspace" if owner is not None else "a workspace of its own"
    sandboxed = ctx.sandbox is None or ctx.sandbox.enabled
    shown = (f"schedule job {name}: {schedule.text} ({schedule.tz}), its answer to "
             f"{targets.describe(deliver)}\n{powers(where, DAILY_USD, sandboxed=sandboxed)}\n{prompt}")
    if not ctx.yolo:
        if ctx.approve is None:
            raise ToolError("refused: creating a scheduled job needs the user's approval and "
                            "no one is here to give it; tell the user the exact `hermes cron add` "
                            "command instead")
        if not ctx.approve(shown, ASKED):
            raise ToolError("the user declined: no job was created. Do not retry; ask the user.")
    network = "public" if ctx.sandbox is None else ctx.sandbox.network
    permissions = created_in(None, sandboxed, network)
    job = insert(cron, schedule, {"name": name, "prompt": prompt, "deliver": deliver,
                                  "permissions": permissions,
                                  "provider": row["provider"], "model": row["model"],
                                  "owner": owner, "daily_usd": DAILY_USD, "skills": []}, now)
    return (f"created job {job.name} (id {job.id}): {json.dumps(_shown(job))}. "
            f"{powers(where, DAILY_USD, sandboxed=sandboxed)}.")


def _mine(cron: CronStore, ctx: ToolContext) -> list[Job]:
    owner = ctx.services.owner
    return cron.jobs() if owner is None else cron.jobs(owner, every_owner=False)


def _shown(job: Job) -> dict[str, Any]:
    return {"id": job.id, "name": job.name, "schedule": job.schedule, "tz": job.tz,
            "deliver": job.deliver, "prompt": job.prompt, "paused": job.paused,
            "next_run_epoch": job.next_run, "last": job.last_status}


TOOL = Tool(
    name="cronjob",
    toolset="cron",
    description=(
        "Run a prompt later or on a schedule, each run a fresh session on this model that "
        "sees only the prompt; its answer goes to `deliver`. Also lists and removes your "
        "jobs. The user is asked before a job is created."),
    parameters={
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["create", "list", "remove"]},
            "schedule": {"type": "string", "description": (
                "create: cron '0 8 * * 1-5', 'every 30m', 'in 2h' or 'at 2026-12-24 09:00' "
                "(the machine's timezone)")},
            "prompt": {"type": "string", "description": "create: the complete instruction"},
            "deliver": {"type": "string", "description": (
                "create: origin (default: where you were asked), none, file:PATH or "
                "PLATFORM:CHAT_ID")},
            "name": {"type": "string", "description": "create: a short name; remove: name or id"},
        },
        "required": ["action"],
    },
    run=cronjob,
)
