"""The /usage report: exact sums of a session's usage rows, and nothing guessed.

Pure over the rows `SessionStore.usage_rows` returns (one per API call). Every total is
the exact sum of its rows; a figure that depends on something the provider did not
report (cache data) or that we cannot price is None ("unknown"), never 0 and never a
partial sum presented as a total (docs/CACHING.md section 5).

Conventions:
- hit_rate = cache_read / (uncached + write_5m + write_1h + cache_read), a ratio 0..1.
- cost = sum of the rows' `cost_usd` (priced when the call was made).
- savings = sum of `pricing.uncached_cost` per row (each with its own model) - cost;
  negative when cache writes cost more than the reads saved.
- The last turn is the trailing run of rows with the same `turn`, so a turn that
  crosses a compression seam (parent -> child session) is counted whole.
- shared_read = cache_read of the FIRST call of a session (call_index 1; compression
  children and resumed sessions continue the numbering, so theirs are not counted) and
  of a sub-agent's first call (miss_detail "sub-agent first call"): nothing of that
  session or sub-agent was cached yet, so what it read was written by another session,
  sub-agent or gateway chat (prefix sharing, agent.prompts.prefix). Later reads of a shared
  block are not told apart from in-session reads (the provider reports one number).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from agent.cache.idle_report import IdleSummary, is_keep_warm
from agent.cache.idle_report import summary as idle_summary
from agent.cost import pricing
from agent.providers import models
from agent.usage import Meter, Usage, is_call
from frontend.miss_causes import CAUSE_EXPLANATIONS

if TYPE_CHECKING:
    from memory.db import Row
    from memory.store import SessionStore

_NOT_MISSES = (None, "cold")
_DOLLAR_PLACES = 8
_RATIO_PLACES = 6


@dataclass(frozen=True)
class Totals:
    """Exact sums over a set of rows; None means unknown.

    The cache buckets (write_5m, write_1h, cache_read) are None when any row lacks
    cache data; `prompt_tokens` is always the exact sum of every bucket reported.
    """

    calls: int
    uncached: int
    write_5m: int | None
    write_1h: int | None
    cache_read: int | None
    output: int
    prompt_tokens: int
    cost: float | None
    priced_calls: int
    hit_rate: float | None
    savings: float | None
    savings_percent: float | None
    # explicit-cache storage (Gemini): token-hours billed and their cost (inside `cost`;
    # None: a model without a storage price) - its own line on /usage
    stored_token_hours: float = 0.0
    storage_cost: float | None = 0.0
    # what else providers billed (agent/usage.py Meter), summed by name, unit and price:
    # {name, quantity, unit, usd_per_unit, cost_usd} each (inside `cost`)
    meters: tuple[dict[str, Any], ...] = ()

    @property
    def cache_known(self) -> bool:
        """True when every row reported cache data."""
        return self.cache_read is not None


@dataclass(frozen=True)
class Context:
    """How full the context window is: the last call's prompt tokens vs the window."""

    used: int | None
    window: int | None
    percent: float | None


@dataclass(frozen=True)
class Miss:
    """One call that missed the cache (a "cold" first write is not a miss)."""

    turn: int
    call_index: int
    cause: str
    detail: str | None
    missed_tokens: int | None
    explanation: str


@dataclass(frozen=True)
class TurnHitRate:
    """One user turn: how many calls it made and its hit rate (None: unknown)."""

    turn: int
    calls: int
    hit_rate: float | None


@dataclass(frozen=True)
class ModelCost:
    """One model's calls in the session and what they cost (None: unknown)."""

    model: str
    calls: int
    cost: float | None


@dataclass(frozen=True)
class UsageReport:
    """Everything /usage shows, computed from usage rows."""

    model: str
    context: Context
    turn: Totals
    session: Totals
    misses: tuple[Miss, ...]
    per_turn: tuple[TurnHitRate, ...]
    unpriced_models: tuple[str, ...]
    price_sources: tuple[str, ...] = ()
    shared_read: int | None = None  # see the module docstring; None: unknown
    idle: IdleSummary | None = None  # pauses and keep-warm reads (agent/cache/idle_report.py)
    # each model's calls and cost, in first-use order (more than one after /model)
    by_model: tuple[ModelCost, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly: ints, dollars rounded to 8 places, ratios to 6, None = unknown."""
        return {
            "model": self.model,
            "context": _rounded(asdict(self.context), {"percent": _RATIO_PLACES}),
            "turn": _totals_dict(self.turn),
            "session": _totals_dict(self.session),
            "misses": [asdict(m) for m in self.misses],
            "per_turn": [_rounded(asdict(t), {"hit_rate": _RATIO_PLACES}) for t in self.per_turn],
            "unpriced_models": list(self.unpriced_models),
            "price_sources": list(self.price_sources),
            "shared_read": self.shared_read,
            "idle": self.idle.as_dict() if self.idle is not None else None,
            "by_model": [_rounded(asdict(m), {"cost": _DOLLAR_PLACES}) for m in self.by_model],
        }


# -- the arithmetic -------------------------------------------------------------------


def _int(value: float | None) -> int:
    return int(value or 0)


def row_cache_known(row: Row) -> bool:
    """True when the provider reported cache data for this row."""
    return bool(row.get("cache_known", True)) and row.get("cache_read") is not None


def row_usage(row: Row) -> Usage:
    """The row's tokens as a Usage (an unreported read counts as 0 read tokens)."""
    return Usage(
        uncached=_int(row.get("uncached")),
        write_5m=_int(row.get("write_5m")),
        write_1h=_int(row.get("write_1h")),
        cache_read=_int(row.get("cache_read")),
        output=_int(row.get("output")),
        cache_known=row_cache_known(row),
        stored_token_hours=float(row.get("stored_token_hours") or 0.0),
        meters=tuple(Meter.from_dict(m) for m in row.get("meters") or ()),
    )


def _row_model(row: Row, default: str) -> str:
    return row.get("model") or default


def _sum_or_none(values: Iterable[float | None]) -> float | None:
    total = 0.0
    for value in values:
        if value is None:
            return None
        total += value
    return total


def _sum_usage(rows: Iterable[Row]) -> Usage:
    usage = Usage(calls=0)
    for row in rows:
        usage = usage + row_usage(row)
    return usage


def totals(rows: Sequence[Row], *, model: str, prices: dict[str, Any] | None = None) -> Totals:
    """Exact totals of `rows`; `model` is used for rows without one, `prices` = overrides."""
    usage = _sum_usage(rows)
    cost = _sum_or_none(row.get("cost_usd") for row in rows)
    baseline = _sum_or_none(
        pricing.uncached_cost(row_usage(row), _row_model(row, model), prices) for row in rows
    )
    known = usage.cache_known
    savings = savings_percent = None
    if known and cost is not None and baseline is not None:
        savings = baseline - cost
        savings_percent = savings / baseline * 100 if baseline else None
    return Totals(
        calls=sum(1 for row in rows if is_call(row)),  # a charge (storage) is no call
        uncached=usage.uncached,
        write_5m=usage.write_5m if known else None,
        write_1h=usage.write_1h if known else None,
        cache_read=usage.cache_read if known else None,
        output=usage.output,
        prompt_tokens=usage.prompt_tokens,
        cost=cost,
        priced_calls=sum(1 for row in rows if is_call(row) and row.get("cost_usd") is not None),
        hit_rate=usage.hit_rate,
        savings=savings,
        savings_percent=savings_percent,
        stored_token_hours=usage.stored_token_hours,
        storage_cost=_sum_or_none(_storage_cost(row, _row_model(row, model), prices) for row in rows),
        meters=tuple(usage.meters_list()),
    )


def _storage_cost(row: Row, model: str, prices: dict[str, Any] | None) -> float | None:
    hours = float(row.get("stored_token_hours") or 0.0)
    if not hours:
        return 0.0
    found = pricing.prices(model, prices)
    return None if found is None else hours * found.storage_hour / 1e6


def turn_runs(rows: Sequence[Row]) -> list[list[Row]]:
    """Split rows into contiguous runs with the same `turn` (call order kept)."""
    runs: list[list[Row]] = []
    for row in rows:
        if runs and _int(runs[-1][-1].get("turn")) == _int(row.get("turn")):
            runs[-1].append(row)
        else:
            runs.append([row])
    return runs


def misses(rows: Iterable[Row]) -> tuple[Miss, ...]:
    """Rows whose miss_cause is a real miss (not None, not "cold"), with explanations."""
    found = []
    for row in rows:
        cause = row.get("miss_cause")
        if cause in _NOT_MISSES:
            continue
        missed = row.get("missed_tokens")
        found.append(Miss(
            turn=_int(row.get("turn")),
            call_index=_int(row.get("call_index")),
            cause=cause,
            detail=row.get("miss_detail"),
            missed_tokens=None if missed is None else int(missed),
            explanation=CAUSE_EXPLANATIONS.get(cause, "an unrecognised cause"),
        ))
    return tuple(found)


def window_for(model: str, override: int | None = None) -> int | None:
    """The context window: `override`, else genai-prices'; None for an unknown model."""
    if override:
        return int(override)
    return models.known_context_window(model)


def _context(rows: Sequence[Row], window: int | None, context_tokens: int | None) -> Context:
    used = context_tokens
    if used is None and rows:
        used = row_usage(rows[-1]).prompt_tokens
    percent = used / window * 100 if used is not None and window else None
    return Context(used=used, window=window, percent=percent)


def _unpriced(rows: Iterable[Row], model: str, prices: dict[str, Any] | None) -> tuple[str, ...]:
    names: list[str] = []
    for row in rows:
        name = _row_model(row, model)
        unknown = row.get("cost_usd") is None or pricing.prices(name, prices) is None
        if unknown and name not in names:
            names.append(name)
    return tuple(names)


def _price_sources(rows: Iterable[Row], model: str, prices: dict[str, Any] | None,
                   ) -> tuple[str, ...]:
    """Where the rows' prices come from, once each: "genai-prices 0.2.3 (data of ...)"
    or "config.yaml prices: (model)" (the current model's when there are no rows)."""
    names = dict.fromkeys(_row_model(row, model) for row in rows) or {model: None}
    found: list[str] = []
    for name in names:
        where = pricing.source(name, prices)
        if where == pricing.CONFIG_SOURCE:
            where = f"{where} ({name})"
        if where is not None and where not in found:
            found.append(where)
    return tuple(found)


def report_from_rows(
    rows: Sequence[Row],
    *,
    model: str,
    prices: dict[str, Any] | None = None,
    context_window: int | None = None,
    context_tokens: int | None = None,
) -> UsageReport:
    """The whole report from usage rows (pure).

    `model` is the session's current model (for the context window and for rows that
    name none); `prices` is config's price overrides; `context_window` overrides the
    catalogue's window; `context_tokens` overrides "context used" (default: the last
    call's prompt tokens).
    """
    rows = list(rows)
    runs = turn_runs([r for r in rows if not is_keep_warm(r)])  # keep-warm: not a turn's
    last_turn = runs[-1] if runs else []
    per_turn = tuple(
        TurnHitRate(turn=_int(run[0].get("turn")), calls=sum(1 for r in run if is_call(r)),
                    hit_rate=_sum_usage(run).hit_rate)
        for run in runs
    )
    return UsageReport(
        model=model,
        context=_context(rows, window_for(model, context_window), context_tokens),
        turn=totals(last_turn, model=model, prices=prices),
        session=totals(rows, model=model, prices=prices),
        misses=misses(rows),
        per_turn=per_turn,
        unpriced_models=_unpriced(rows, model, prices),
        price_sources=_price_sources(rows, model, prices),
        shared_read=shared_read(rows),
        idle=idle_summary(rows, model=model, prices=prices),
        by_model=by_model(rows, model),
    )


def by_model(rows: Iterable[Row], model: str) -> tuple[ModelCost, ...]:
    """Each model's calls and their summed cost (None when one is unpriced)."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(_row_model(row, model), []).append(row)
    return tuple(ModelCost(name, sum(1 for r in group if is_call(r)),
                           _sum_or_none(r.get("cost_usd") for r in group))
                 for name, group in groups.items())


SUB_AGENT_FIRST = "sub-agent first call"


def shared_read(rows: Iterable[Row]) -> int | None:
    """Tokens first calls read from other sessions' writes (module docstring)."""
    first = [r for r in rows if _int(r.get("call_index")) == 1
             or (r.get("miss_detail") or "").startswith(SUB_AGENT_FIRST)]
    if any(not row_cache_known(r) for r in first):
        return None
    return sum(_int(r.get("cache_read")) for r in first)


def build_report(
    store: SessionStore,
    session_id: str,
    *,
    prices: dict[str, Any] | None = None,
    context_windows: dict[str, int] | None = None,
    context_tokens: int | None = None,
) -> UsageReport:
    """The report of a session and its ancestors (so /usage spans compression seams).

    The model is the last call's (else the session's);
    `context_windows` is config's {model: window} override mapping.
    """
    rows = store.usage_rows(session_id, lineage=True)
    model = rows[-1].get("model") if rows else None
    if not model:
        session = store.get_session(session_id) or {}
        model = session.get("model") or ""
    windows = context_windows or {}
    override = windows.get(model) or windows.get(models.base_model_id(model))
    return report_from_rows(rows, model=model, prices=prices, context_window=override,
                            context_tokens=context_tokens)


# -- serialisation --------------------------------------------------------------------


def _rounded(data: dict[str, Any], places: dict[str, int]) -> dict[str, Any]:
    out = dict(data)
    for key, digits in places.items():
        if out.get(key) is not None:
            out[key] = round(float(out[key]), digits)
    return out


def _totals_dict(item: Totals) -> dict[str, Any]:
    data = asdict(item)
    data["cache_known"] = item.cache_known
    return _rounded(data, {"cost": _DOLLAR_PLACES, "savings": _DOLLAR_PLACES,
                           "storage_cost": _DOLLAR_PLACES, "stored_token_hours": _RATIO_PLACES,
                           "hit_rate": _RATIO_PLACES, "savings_percent": _RATIO_PLACES})
