"""What working without typing costs, on the fake Anthropic API and its clock.

    .venv/bin/python bench/autonomy.py

1. A 10-turn /goal against the same 10 turns typed by a user. The goal's turns follow
   each other at once (its check runs in between: a few seconds), so each reads what the
   previous wrote; the user pauses between turns (a fixed, plausible set of pauses, two
   of them past the 5-minute lifetime), and a turn after such a pause writes the whole
   prefix again. The REPL's keeper is off in both (it would narrow the gap for the
   user at the price of keep-warm reads: bench/cache_pauses.py). Also shown: a goal
   without --check (one more question turn after each turn).
2. /loop over one hour: the interval `auto` chooses (frontend/autonomy/loop.py) against
   fixed 60 s and 900 s: iterations, cost per iteration and per hour.

Costs are the ledger's (usage rows, the model's prices); the prefix is hermes' own
(tools and system, about 3.4k tokens) plus the conversation.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import tempfile  # noqa: E402

from agent.agent import AIAgent  # noqa: E402
from agent.cache.keeper import rates_for  # noqa: E402
from agent.config import AgentConfig  # noqa: E402
from agent.providers.base import ProviderSettings  # noqa: E402
from bench._fakes import filler, make_project  # noqa: E402
from frontend.autonomy.goal import GoalSpec, continuation, first_message, question  # noqa: E402
from frontend.autonomy.loop import choose, span  # noqa: E402
from memory.store import SessionStore  # noqa: E402
from tests.fakes import FakeProvider, Reply  # noqa: E402

MODEL = "claude-sonnet-5"
TURNS = 10
CHECK_SECONDS = 5.0  # the goal's check between two turns
USER_PAUSES = (20, 45, 90, 400, 30, 120, 600, 60, 35)  # seconds between typed turns
HOUR = 3600.0


def _agent(fake: FakeProvider, root: Path) -> AIAgent:
    home, cwd = root / "home", root / "work"
    home.mkdir(parents=True, exist_ok=True)
    make_project(cwd)
    settings = ProviderSettings("anthropic", MODEL, "test-key", fake.anthropic_base_url)
    return AIAgent(AgentConfig(provider=settings, home=home, cwd=cwd),
                   SessionStore(home / "state.db"), clock=fake.clock.now)


def _turn(agent: AIAgent, text: str) -> None:
    for _event in agent.run_turn(text):
        pass


def _cost(agent: AIAgent) -> float:
    assert agent.store is not None
    return sum(r["cost_usd"] or 0.0 for r in agent.store.usage_rows(agent.session_id))


def _session(fake: FakeProvider, run) -> float:  # noqa: ANN001 - a scenario
    fake.reset()
    with tempfile.TemporaryDirectory() as tmp:
        agent = _agent(fake, Path(tmp))
        try:
            run(agent)
            return _cost(agent)
        finally:
            agent.close()


def goal_vs_typed(fake: FakeProvider) -> dict[str, float]:
    spec = GoalSpec("make the parser handle every edge case", "pytest -q", TURNS)
    messages = [first_message(spec)] + [continuation(spec, n, "2 tests fail")
                                        for n in range(2, TURNS + 1)]
    answers = [Reply(text=filler(500 + n, 180)) for n in range(TURNS)]

    def goal(agent: AIAgent) -> None:
        fake.script(*answers)
        for text in messages:
            _turn(agent, text)
            fake.clock.advance(CHECK_SECONDS)

    def goal_asking(agent: AIAgent) -> None:
        for n, text in enumerate(messages):
            fake.script(answers[n], Reply(text="NOT DONE\n2 tests fail"))
            _turn(agent, text)
            _turn(agent, question(spec))

    def typed(agent: AIAgent) -> None:
        fake.script(*answers)
        for n, text in enumerate(messages):
            _turn(agent, text)
            if n < len(USER_PAUSES):
                fake.clock.advance(USER_PAUSES[n])

    return {"goal (--check)": _session(fake, goal),
            "goal (asks DONE/NOT DONE)": _session(fake, goal_asking),
            "typed by a user": _session(fake, typed)}


def loop_hour(fake: FakeProvider, interval: float) -> tuple[int, float]:
    """(iterations, cost of the iterations) of a loop running for an hour."""
    result: list[float] = []

    def run(agent: AIAgent) -> None:
        fake.script(Reply(text=filler(7, 120)))
        _turn(agent, "Watch the build and tell me when it breaks.")
        before, count, elapsed = _cost(agent), 0, 0.0
        while elapsed + interval <= HOUR:
            fake.clock.advance(interval)
            elapsed += interval
            fake.script(Reply(text=f"build {count}: green, 412 tests pass"))
            _turn(agent, "Check the build now.")
            count += 1
        result.extend((count, _cost(agent) - before))

    _session(fake, run)
    return int(result[0]), result[1]


def main() -> None:
    with FakeProvider() as fake:
        print(f"1. {TURNS} turns of one goal vs the same turns typed (pauses {USER_PAUSES} s)")
        costs = goal_vs_typed(fake)
        base = costs["typed by a user"]
        for name, cost in costs.items():
            print(f"   {name:<28} ${cost:.4f}  ({cost / base:.2f}x the typed turns)")
        with tempfile.TemporaryDirectory() as tmp:
            agent = _agent(fake, Path(tmp))
            caller = agent.caller
            chosen = choose(caller.cache_model().lifetime(caller.ttl), caller.prefix_tokens,
                            rates_for(caller))
            agent.close()
        print(f"\n2. /loop for an hour; auto chose every {span(chosen.interval)}: {chosen.why}")
        for label, interval in (("60s", 60.0), (f"auto ({span(chosen.interval)})",
                                                chosen.interval), ("900s", 900.0)):
            count, cost = loop_hour(fake, interval)
            print(f"   {label:<14} {count:>3} iterations  ${cost / count:.5f} each  "
                  f"${cost:.4f} per hour")


if __name__ == "__main__":
    main()
