"""/goal, /loop and /bg in the REPL (the logic: frontend/autonomy; the REPL's timer and
goal runner: hermes_cli/repl/autonomy.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent.errors import HermesError
from hermes_cli.slash.api import ReplLike as Repl

# Function-level imports below: frontend.autonomy loads with the first of these commands
# (start-up speed of the REPL).


def _autonomy(repl: Repl) -> Any:
    autonomy = getattr(repl, "autonomy", None)
    if autonomy is None:
        raise HermesError("this REPL cannot run goals or loops")
    return autonomy


def cmd_goal(repl: Repl, arg: str) -> None:
    from frontend.autonomy import goal as goals

    autonomy = _autonomy(repl)
    word = arg.strip()
    current = autonomy.goal
    if not word:
        if current is None:
            repl.renderer.info(f"no goal yet; {goals.USAGE}")
        else:
            repl.renderer.info(current.describe(repl.agent.budget.spent_usd))
        return
    if word == "stop":
        if current is None or not current.running:
            repl.renderer.info("no goal is running")
            return
        current.stop = "stopped"
        repl.renderer.notice(current.stop_notice(repl.agent).text)
        return
    try:
        spec = goals.parse_goal(arg)
    except goals.GoalUsageError as exc:
        raise HermesError(str(exc), f"usage: {goals.USAGE}") from None
    agent = repl.agent
    check = f"; done when `{spec.check}` exits 0" if spec.check else (
        "; after each turn hermes asks whether it holds")
    repl.renderer.notice(f"goal: at most {spec.max_turns} turns{check}. Ctrl-C stops it.")
    autonomy.run_goal(goals.start(agent, spec))


def cmd_loop(repl: Repl, arg: str) -> None:
    from agent.cache.keeper import rates_for
    from frontend.autonomy import loop as loops
    from hermes_cli.render.usage import fmt_money

    autonomy = _autonomy(repl)
    word = arg.strip()
    if not word:
        current = autonomy.loop
        if current is None:
            repl.renderer.info(f"no loop; {loops.USAGE}")
        else:
            repl.renderer.info(f"loop every {loops.span(current.interval)}: {current.spec.prompt} "
                               f"· {current.iterations} iterations · spent "
                               f"{fmt_money(current.spent)}")
        return
    if word == "stop":
        stopped = autonomy.stop_loop()
        repl.renderer.notice("no loop was running" if stopped is None else
                             f"loop stopped after {stopped.iterations} iterations "
                             f"(spent {fmt_money(stopped.spent)})")
        return
    try:
        spec = loops.parse_loop(arg)
    except loops.LoopUsageError as exc:
        raise HermesError(str(exc), f"usage: {loops.USAGE}") from None
    if spec.interval is None:
        caller = repl.agent.caller
        lifetime = caller.cache_model().lifetime(caller.ttl)
        choice = loops.choose(lifetime, caller.prefix_tokens + caller.history_tokens(),
                              rates_for(caller))
        interval, why = choice.interval, choice.why
    else:
        interval, why = spec.interval, ""
    autonomy.start_loop(spec, interval, why)
    repl.renderer.notice(f"loop: every {loops.span(interval)}" + (f": {why}" if why else "")
                         + ". /loop stop ends it.")


def cmd_bg(repl: Repl, arg: str) -> None:
    from hermes_cli.commands.bg import start_fork

    prompt = arg.strip()
    if not prompt:
        raise HermesError("/bg needs a prompt", "e.g. /bg run the test suite and summarise "
                          "the failures")
    agent = repl.agent
    if agent.store is None:
        raise HermesError("this session is not stored, so it cannot be forked")
    started = start_fork(agent, prompt)
    _autonomy(repl).watch(started)
    repl.renderer.notice(f"background run {started} started from this conversation (it reads "
                         f"this session's cache); `hermes logs {started}` follows it")


HANDLERS: dict[str, Callable[[Repl, str], None]] = {
    "goal": cmd_goal,
    "loop": cmd_loop,
    "bg": cmd_bg,
}
