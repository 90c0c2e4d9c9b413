"""Cache-efficiency bench: one scripted session of the real AIAgent against the fake
Anthropic API and the fake OpenAI Responses API (GPT-5.6), side by side, scored against
the ideal prefix reuse (docs/CACHING.md section 5). The legs: bench/_legs.py.

    .venv/bin/python bench/cache_efficiency.py [--turns 30] [--requests]
        [--provider anthropic|openai|both] [--no-pauses]

Model: claude-sonnet-5 with the fake's real minimum cacheable prefix (1,024 tokens;
claude-opus-5 for the /model leg: 512). The agent's tools + system prefix is already
larger than that, so every request is cacheable from the first one: the real minimum
costs nothing here and keeps the numbers those of production.

The session (the first 12 turns hold every hard event, so `run(turns=12)` keeps them):
tool calls on most turns, two turns appending more than 20 blocks since the previous
request (12 parallel read_file; text + 11 parallel search_files), a memory write, a
skill load, a 400 s idle gap on the fake clock (> the 5 min TTL), a /model switch
to claude-opus-5 and back, and a final /compress (its summary call is the last row). Per request the bench reads the fake's records (read,
prompt, write, uncached, breakpoints, status) and computes the ideal read itself (see
bench/_fakes.IDEAL_DEFINITION). `--hard-switch` makes the other-model turn append more
than 20 blocks before the switch back (a known weak spot: see the report it prints).

The keeper (adaptive lifetimes, keep-warm) is not driven by that script: after it, this
bench runs bench/cache_pauses.py's two 22-turn scripts (one 7-minute pause, no pause)
through the keeper and prints cost against the offline lower bound for each (target
>= 0.98; `--no-pauses` skips them; bench/cache_pauses.py alone runs only those).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import tempfile  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

from agent.agent import AIAgent  # noqa: E402
from agent.config import AgentConfig  # noqa: E402
from agent.cost import pricing  # noqa: E402
from agent.events import ErrorEvent  # noqa: E402
from agent.usage import Usage  # noqa: E402
from bench import _docs  # noqa: E402
from bench._fakes import IDEAL_DEFINITION, IdealCache, filler, make_project, marker_blocks  # noqa: E402
from bench._legs import ANTHROPIC, LEGS, Leg, leg_figures, new_session  # noqa: E402
from frontend.usage_report import build_report  # noqa: E402
from memory.store import SessionStore  # noqa: E402
from tests.fakes import FakeProvider, Reply, ToolCall  # noqa: E402

MODEL = "claude-sonnet-5"
OTHER_MODEL = "claude-opus-5"
IDLE_GAP = 400.0
TARGET = 0.97


@dataclass
class TurnSpec:
    label: str
    text: str
    rounds: list[list[ToolCall]] = field(default_factory=list)  # one model call each
    preface: str = ""  # text beside the first round's tool calls
    gap: float = 0.0  # fake-clock seconds before the turn
    model: str | None = None  # /model switch before the turn


def _read(path: str) -> ToolCall:
    return ToolCall("read_file", {"path": path})


def _mod(i: int) -> str:
    return f"src/mod_{i:02d}.py"


def core_turns(hard_switch: bool = False, leg: Leg = ANTHROPIC) -> list[TurnSpec]:
    """Turns 1-12: every event the short run must contain. `hard_switch`: the turn on the
    other model appends more than 20 blocks (12 parallel reads) before switching back."""
    model, other_model = leg.model, leg.other
    other = (TurnSpec("12 parallel reads (other model)", "Re-check every module.",
                      [[_read(_mod(i)) for i in range(12)]]) if hard_switch
             else TurnSpec("plain (other model)", "Thanks, anything else worth noting?"))
    return [
        TurnSpec("plain", "Hi! What is this repository about?"),
        TurnSpec("read_file", "Read notes.txt and summarise it.", [[_read("notes.txt")]]),
        TurnSpec("12 parallel reads (>20 blocks)", "Review every module under src/.",
                 [[_read(_mod(i)) for i in range(12)]]),
        TurnSpec("memory add", "Remember that I prefer short answers.",
                 [[ToolCall("memory", {"action": "add", "target": "user",
                                       "content": "Prefers short answers."})]]),
        TurnSpec("skill_view", "Help me debug func_3_1.",
                 [[ToolCall("skill_view", {"name": "debugging"})], [_read(_mod(3))]]),
        TurnSpec("idle 400s gap", "Back again. Where were we?", [[_read("README.md")]],
                 gap=IDLE_GAP),
        TurnSpec(f"/model {other_model}", "Second opinion: where is retry handled?",
                 [[ToolCall("search_files", {"pattern": "retry"})]], model=other_model),
        other,
        TurnSpec(f"/model {model} (back)", "List the source files.",
                 [[ToolCall("terminal", {"command": "ls src"})]], model=model),
        TurnSpec("todo", "Plan the refactor.",
                 [[ToolCall("todo", {"todos": [
                     {"id": "1", "content": "split mod_01", "status": "in_progress"},
                     {"id": "2", "content": "add tests", "status": "pending"}]})]]),
        TurnSpec("text + 11 parallel searches (>20 blocks)", "Find every use of each word.",
                 [[ToolCall("search_files", {"pattern": w}) for w in
                   ("cache", "prefix", "tokens", "request", "session", "breakpoint", "agent",
                    "parser", "handler", "stream", "usage")]],
                 preface="Searching for all eleven words in parallel."),
        TurnSpec("plain", "Summarise what we found."),
    ]


def tail_turn(n: int) -> TurnSpec:
    """Turn n (13..): a rotating mix of ordinary work."""
    i = n % 8
    if i == 0:
        return TurnSpec("write_file", f"Create docs/step_{n}.md.",
                        [[ToolCall("write_file", {"path": f"docs/step_{n}.md",
                                                  "content": filler(n, 60)})]])
    if i == 1:
        return TurnSpec("read + patch", f"Fix func_{n % 16}_0.",
                        [[_read(_mod(n % 16))],
                         [ToolCall("patch", {"path": _mod(n % 16),
                                             "old_string": "return value * 1 +",
                                             "new_string": "return value * 1 - 0 +"})]])
    if i == 2:
        return TurnSpec("plain", f"Explain the design of module {n % 16}.")
    if i == 3:
        return TurnSpec("terminal", "Run the line count.",
                        [[ToolCall("terminal", {"command": "wc -l src/*.py"})]])
    if i == 4:
        return TurnSpec("14 parallel reads (>20 blocks)", "Re-read all modules after the edits.",
                        [[_read(_mod(k)) for k in range(14)]])
    if i == 5:
        return TurnSpec("skills_list + session_search", "What skills and history do we have?",
                        [[ToolCall("skills_list", {})],
                         [ToolCall("session_search", {"query": "retry"})]])
    if i == 6:
        return TurnSpec("memory add", "Note the test command for later.",
                        [[ToolCall("memory", {"action": "add", "target": "memory",
                                              "content": f"Tests: pytest -q (turn {n})."})]])
    return TurnSpec("3 sequential reads", "Compare mod_04, mod_05 and mod_06.",
                    [[_read(_mod(4))], [_read(_mod(5))], [_read(_mod(6))]])


def session_plan(turns: int, hard_switch: bool = False, leg: Leg = ANTHROPIC) -> list[TurnSpec]:
    core = core_turns(hard_switch, leg)
    return core[:turns] + [tail_turn(n) for n in range(len(core) + 1, turns + 1)]


def replies(spec: TurnSpec, number: int) -> list[Reply]:
    out = []
    for k, calls in enumerate(spec.rounds):
        out.append(Reply(text=spec.preface if k == 0 else "", tool_calls=list(calls)))
    out.append(Reply(text=f"Turn {number}: " + filler(1000 + number, 70)))
    return out


# ---------------------------------------------------------------- measurement

def price(model: str, usage: Usage) -> tuple[float, float]:
    return pricing.cost(usage, model) or 0.0, pricing.uncached_cost(usage, model) or 0.0


def measure(records: list[Any], ttl: float, leg: Leg = ANTHROPIC) -> list[dict[str, Any]]:
    """Per request: the fake's figures plus the ideal read (records in send order)."""
    ideal = IdealCache(ttl=ttl, min_tokens=leg.min_tokens, blocks=leg.blocks)
    rows = []
    for index, rec in enumerate(records):
        row: dict[str, Any] = {"request": index + 1, "status": rec.status, "model": rec.model,
                               "breakpoints": rec.breakpoints, "time": rec.time}
        if rec.status != 200:
            rows.append(row | {"prompt": 0, "read": 0, "write": 0, "uncached": 0, "ideal": 0,
                               "cost": 0.0, "uncached_cost": 0.0})
            continue
        best, where, prompt = ideal.observe(rec.body, rec.time)
        usage = rec.usage or {}
        short, long_ = leg.split(usage)
        tokens = Usage(uncached=rec.uncached, write_5m=short, write_1h=long_,
                       cache_read=rec.cache_read, output=usage.get("output_tokens", 0))
        cost, uncached_cost = price(rec.model, tokens)
        rows.append(row | {
            "prompt": rec.prompt_tokens, "read": rec.cache_read, "write": rec.cache_write,
            "uncached": rec.uncached, "ideal": best, "ideal_block": where,
            "blocks": len(prompt.blocks), "markers": marker_blocks(prompt), "cost": cost,
            "uncached_cost": uncached_cost, "fake_miss_reason": rec.miss_reason})
    return rows


def ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def sums(rows: list[dict[str, Any]]) -> dict[str, Any]:
    keys = ("prompt", "read", "write", "uncached", "ideal", "cost", "uncached_cost")
    total: dict[str, Any] = {k: sum(r[k] for r in rows) for k in keys}
    total["calls"] = len(rows)
    total["efficiency"] = ratio(total["read"], total["ideal"])
    total["hit_rate"] = ratio(total["read"], total["prompt"])
    return total


# ---------------------------------------------------------------- the session

SUMMARY = "## Goal\nReview the project.\n## Done so far\n" + "Read and searched every module. " * 20


def compact(fake: FakeProvider, agent: AIAgent) -> dict[str, Any]:
    """A /compress at the end of the session: the summary call's request slice."""
    start = len(fake.requests)
    fake.script(Reply(text=SUMMARY))
    errors = [e.message for e in agent.compress() if isinstance(e, ErrorEvent)]
    return {"turn": "C", "label": "/compress (summary call)", "model": agent.model,
            "first": start, "end": len(fake.requests), "errors": errors}


def drive(fake: FakeProvider, agent: AIAgent, plan: list[TurnSpec]) -> list[dict[str, Any]]:
    """Run the scripted turns, then /compress; per turn its spec, request slice, errors."""
    turns = []
    for number, spec in enumerate(plan, 1):
        if spec.gap:
            fake.clock.advance(spec.gap)
        if spec.model:
            agent.switch_model(spec.model)
        start = len(fake.requests)
        fake.script(*replies(spec, number))
        errors = [e.message for e in agent.run_turn(spec.text) if isinstance(e, ErrorEvent)]
        if fake.remaining:
            errors.append(f"{fake.remaining} scripted replies left unused")
        turns.append({"turn": number, "label": spec.label, "model": agent.model,
                      "first": start, "end": len(fake.requests), "errors": errors})
    return [*turns, compact(fake, agent)]


def run(turns: int = 30, quiet: bool = False, show_requests: bool = False,  # noqa: PLR0913
        hard_switch: bool = False, leg: Leg = ANTHROPIC) -> dict[str, Any]:
    """Run the bench; print the report unless quiet; return the totals."""
    if turns < 1:
        raise ValueError("turns must be >= 1")
    plan = session_plan(turns, hard_switch, leg)
    with tempfile.TemporaryDirectory(prefix="hermes-bench-") as tmp, FakeProvider() as fake:
        home, cwd = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        make_project(cwd)
        store = SessionStore(home / "state.db")
        config = AgentConfig(provider=leg.settings(fake), home=home, cwd=cwd, cache_ttl="5m")
        agent = AIAgent(config, store, approve=lambda *_: True, clock=fake.clock.now)
        try:
            turn_rows = drive(fake, agent, plan)
            records = fake.requests_for(leg.api)
            requests = measure(records, leg.ttl, leg)
            report = build_report(store, agent.session_id)  # the lineage: both sides of the seam
            usage_rows = store.usage_rows(agent.session_id, lineage=True)
            extra = leg_figures(leg, records, new_session(fake, config, store))
        finally:
            agent.close()
            store.close()
    for turn in turn_rows:
        for req in requests[turn["first"]:turn["end"]]:
            req["turn"] = turn["turn"]
        turn.update(sums(requests[turn["first"]:turn["end"]]))
    result = sums(requests)
    result.update({
        "turns": turns,
        "hard_switch": hard_switch,
        "requests": len(requests),
        "errors_400": sum(1 for r in requests if r["status"] == 400),
        "non_200": sum(1 for r in requests if r["status"] != 200),
        "turn_errors": [e for t in turn_rows for e in t["errors"]],
        "max_breakpoints": max((r["breakpoints"] for r in requests), default=0),
        "over_ideal": [r["request"] for r in requests if r["read"] > r["ideal"]],
        "report_hit_rate": report.session.hit_rate,
        "report_cache_read": report.session.cache_read,
        "report_prompt_tokens": report.session.prompt_tokens,
        "report_cost": report.session.cost,
        "misses": [{"turn": m.turn, "call": m.call_index, "cause": m.cause, "detail": m.detail,
                    "missed_tokens": m.missed_tokens} for m in report.misses],
        "usage_causes": [r.get("miss_cause") for r in usage_rows],
        "shortfalls": [r for r in requests if r["status"] == 200 and r["read"] < r["ideal"]],
        "per_turn": turn_rows,
        "per_request": requests,
        "leg": leg.name,
        **extra,
    })
    if not quiet:
        print_report(result, show_requests)
    return result


# ---------------------------------------------------------------- printing

def _pct(value: float | None) -> str:
    return "   -  " if value is None else f"{value * 100:6.1f}"


def print_report(res: dict[str, Any], show_requests: bool = False) -> None:
    leg = LEGS[res["leg"]]
    print(f"cache efficiency bench ({leg.name}): {res['turns']} turns, {res['requests']} "
          f"requests, {leg.model} (min {leg.min_tokens(leg.model)}) with /model {leg.other} "
          f"(min {leg.min_tokens(leg.other)}), fake's real minimums, cache_ttl 5m "
          f"({leg.ttl / 60:.0f} min on this provider)"
          f"{', --hard-switch' if res['hard_switch'] else ''}")
    head = (f"{'turn':>4} {'event':<42} {'model':<16} {'calls':>5} {'prompt':>8} {'read':>8} "
            f"{'write':>7} {'uncach':>6} {'ideal':>8} {'eff%':>6} {'hit%':>6} "
            f"{'cost$':>8} {'nocache$':>8}")
    print(head)
    print("-" * len(head))
    for t in res["per_turn"]:
        print(f"{t['turn']:>4} {t['label'][:42]:<42} {t['model']:<16} {t['calls']:>5} "
              f"{t['prompt']:>8} {t['read']:>8} {t['write']:>7} {t['uncached']:>6} "
              f"{t['ideal']:>8} {_pct(t['efficiency'])} {_pct(t['hit_rate'])} "
              f"{t['cost']:>8.4f} {t['uncached_cost']:>8.4f}")
    if show_requests:
        print("\nper request: #, turn, model, prompt, read, ideal, write, breakpoint blocks")
        for r in res["per_request"]:
            print(f"  {r['request']:>3} t{r.get('turn', '?'):<3} {r['model']:<16} "
                  f"{r['prompt']:>7} {r['read']:>7} {r['ideal']:>7} {r['write']:>6} "
                  f"{r.get('markers')}")
    print_totals(res)


def print_totals(res: dict[str, Any]) -> None:
    eff = res["efficiency"]
    saved = res["uncached_cost"] - res["cost"]
    print("\nTOTALS")
    print(f"  reads {res['read']:,} / ideal reads {res['ideal']:,} -> efficiency "
          f"{_pct(eff).strip()}% (target >= {TARGET * 100:.0f}%: "
          f"{'met' if eff is not None and eff >= TARGET else 'MISSED'})")
    print(f"  hit rate (fake records) {res['read']:,} / {res['prompt']:,} prompt tokens = "
          f"{_pct(res['hit_rate']).strip()}%; usage report says "
          f"{_pct(res['report_hit_rate']).strip()}% "
          f"({'equal' if res['report_hit_rate'] == res['hit_rate'] else 'DIFFERENT'})")
    print(f"  writes {res['write']:,}, uncached {res['uncached']:,}")
    print(f"  cost with caching ${res['cost']:.4f} vs without ${res['uncached_cost']:.4f} "
          f"(saved ${saved:.4f}, {saved / res['uncached_cost'] * 100:.1f}%)"
          if res["uncached_cost"] else "  cost: nothing priced")
    print(f"  HTTP 400s: {res['errors_400']} (must be 0); other non-200: "
          f"{res['non_200'] - res['errors_400']}; turn errors: {res['turn_errors'] or 'none'}")
    print(f"  max breakpoints in one request: {res['max_breakpoints']} (must be <= 4)")
    if res["over_ideal"]:
        print(f"  WARNING: read > ideal on requests {res['over_ideal']} (ideal model wrong?)")
    print("  misses recorded by the agent (usage rows; 'cold' first write not counted):")
    for m in res["misses"] or [{"turn": "-", "call": "-", "cause": "none", "detail": "",
                                "missed_tokens": None}]:
        print(f"    turn {m['turn']} call {m['call']}: {m['cause']} - {m['detail']} "
              f"(missed {m['missed_tokens']} tokens)")
    for r in res["shortfalls"]:
        print(f"  shortfall: request {r['request']} (turn {r.get('turn')}, {r['model']}) read "
              f"{r['read']} < ideal {r['ideal']} (ideal prefix ends at block "
              f"{r['ideal_block']} of {r['blocks']}; breakpoints on blocks {r['markers']})")
    print(f"  written tokens never read by a later request: {res['unread_writes']:,}")
    share = res["new_session_read_share"]
    print(f"  a new session's first request reads {_pct(share).strip()}% of its prompt")
    if res["diagnosed_share"] is not None:
        print(f"  follow-ups the provider diagnosed (hit or named miss): "
              f"{_pct(res['diagnosed_share']).strip()}%")
    print(f"  ideal read: {IDEAL_DEFINITION}")


def side_by_side(results: list[dict[str, Any]]) -> str:
    """One line per figure, one column per provider; returns the same as a Markdown table."""
    rows = [("requests", lambda r: f"{r['requests']}"),
            ("efficiency (reads / ideal)", lambda r: _pct(r["efficiency"]).strip() + "%"),
            ("hit rate", lambda r: _pct(r["hit_rate"]).strip() + "%"),
            ("cost vs uncached", lambda r: f"${r['cost']:.4f} vs ${r['uncached_cost']:.4f}"),
            ("/usage cost = billed", lambda r: "yes" if r["report_cost"] is not None
             and abs(r["report_cost"] - r["cost"]) < 1e-9 else "NO"),
            ("written, never read", lambda r: f"{r['unread_writes']:,} of {r['write']:,}"),
            ("new session first read", lambda r: _pct(r["new_session_read_share"]).strip() + "%"),
            ("follow-ups diagnosed", lambda r: "-" if r["diagnosed_share"] is None
             else _pct(r["diagnosed_share"]).strip() + "%"),
            ("HTTP 400s", lambda r: f"{r['errors_400']}")]
    print("\nSIDE BY SIDE")
    print(f"  {'':<28}" + "".join(f"{LEGS[r['leg']].model:>22}" for r in results))
    for name, shown in rows:
        print(f"  {name:<28}" + "".join(f"{shown(r):>22}" for r in results))
    return _docs.table(["metric", *(LEGS[r["leg"]].model for r in results)],
                       [[name, *(shown(r) for r in results)] for name, shown in rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--requests", action="store_true", help="also print every request")
    parser.add_argument("--hard-switch", action="store_true",
                        help="the other-model leg appends > 20 blocks before switching back")
    parser.add_argument("--provider", choices=("anthropic", "openai", "both"), default="both",
                        help="which fake API the script runs on (default: both, side by side)")
    parser.add_argument("--no-pauses", action="store_true",
                        help="skip the keeper's pause / no-pause scripts (bench/cache_pauses.py)")
    parser.add_argument("--write-docs", action="store_true",
                        help="write the side-by-side table into docs/BENCHMARKS.md")
    args = parser.parse_args(argv)
    names = ("anthropic", "openai") if args.provider == "both" else (args.provider,)
    results = [run(args.turns, show_requests=args.requests, hard_switch=args.hard_switch,
                   leg=LEGS[name]) for name in names]
    if len(results) > 1:
        markdown = side_by_side(results)
        if args.write_docs:
            _docs.write_section("cache-efficiency", (
                f"`bench/cache_efficiency.py`: {args.turns} turns of tool loops, turns appending "
                "more than 20 blocks, a memory write, a skill load, a 400 s idle gap, a model "
                "switch and back, on each provider's fake API:\n\n" + markdown),
                bench="cache_efficiency")
    ok = all(res["errors_400"] == 0 and res["max_breakpoints"] <= 4 and not res["turn_errors"]
             and res["efficiency"] is not None and res["efficiency"] >= TARGET
             for res in results)
    if not args.no_pauses:
        from bench import cache_pauses  # the keeper's scripts, only when asked for

        print("\ncost against the offline lower bound, keeper running (bench/cache_pauses.py):")
        ok = cache_pauses.main([]) == 0 and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
