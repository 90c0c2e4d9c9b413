"""What the user's pauses cost and what keeping the cache warm saved (for /usage).

Pure over usage rows. A pause is the time between two user turns; keep-warm rows
(kind "keep_warm", agent/modelcall/keepwarm.py) carry the turn number of the turn before them.
Per pause:
- kept warm: the keep-warm reads sent and their exact cost (the rows' `cost_usd`);
- rewrite: when the first call after the pause was diagnosed `expired`, what writing the
  prefix again cost beyond reading it (its written tokens x (write price - read price));
- rewrite avoided (~, an estimate): when the user came back to a prefix a keep-warm read
  had kept, the last such read's tokens x (5m write price - read price).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from agent.cost import pricing

if TYPE_CHECKING:
    from memory.db import Row

KEEP_WARM = "keep_warm"


@dataclass(frozen=True)
class Pause:
    after_turn: int
    keep_warm_reads: int
    keep_warm_cost: float | None
    rewrite_cost: float | None
    avoided: float | None


@dataclass(frozen=True)
class IdleSummary:
    keep_warm_reads: int
    keep_warm_cost: float | None
    avoided: float | None
    rewrites: int
    rewrite_cost: float | None
    pauses: tuple[Pause, ...]

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["pauses"] = [asdict(p) for p in self.pauses]
        return data


def is_keep_warm(row: Row) -> bool:
    return row.get("kind") == KEEP_WARM


def _price(row: Row, model: str, prices: dict[str, Any] | None) -> pricing.Prices | None:
    return pricing.prices(row.get("model") or model, prices)


def _rewrite(row: Row, model: str, prices: dict[str, Any] | None) -> float | None:
    price = _price(row, model, prices)
    if price is None:
        return None
    w5, w1 = int(row.get("write_5m") or 0), int(row.get("write_1h") or 0)
    return (w5 * (price.cache_write_5m - price.cache_read)
            + w1 * (price.cache_write_1h - price.cache_read)) / 1e6


def _avoided(row: Row, model: str, prices: dict[str, Any] | None) -> float | None:
    price = _price(row, model, prices)
    if price is None:
        return None
    return int(row.get("cache_read") or 0) * (price.cache_write_5m - price.cache_read) / 1e6


def _sum(values: list[float | None]) -> float | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def summary(rows: Sequence[Row], *, model: str, prices: dict[str, Any] | None = None,
            ) -> IdleSummary:
    """Pauses with keep-warm reads or an expiry rewrite, and their totals."""
    pauses: list[Pause] = []
    warm: list[Row] = []
    last_turn = 0
    for row in rows:
        if is_keep_warm(row):
            warm.append(row)
            continue
        turn = int(row.get("turn") or 0)
        if turn != last_turn:  # the first call of a new turn ends the pause before it
            expired = row.get("miss_cause") == "expired"
            if warm or expired:
                pauses.append(_pause(last_turn, warm, row if expired else None, model, prices))
            warm = []
            last_turn = turn
    if warm:  # still idle (or abandoned): spent, nothing avoided yet
        pauses.append(_pause(last_turn, warm, None, model, prices, returned=False))
    return IdleSummary(
        keep_warm_reads=sum(p.keep_warm_reads for p in pauses),
        keep_warm_cost=_sum([p.keep_warm_cost for p in pauses]),
        avoided=_sum([p.avoided for p in pauses]),
        rewrites=sum(1 for p in pauses if p.rewrite_cost is not None and p.rewrite_cost > 0),
        rewrite_cost=_sum([p.rewrite_cost for p in pauses]),
        pauses=tuple(pauses),
    )


def _pause(after: int, warm: list[Row], expired: Row | None, model: str,  # noqa: PLR0913
           prices: dict[str, Any] | None, *, returned: bool = True) -> Pause:
    cost = _sum([r.get("cost_usd") for r in warm]) if warm else 0.0
    rewrite = _rewrite(expired, model, prices) if expired is not None else 0.0
    avoided: float | None = 0.0
    if warm and returned and expired is None and not warm[-1].get("write_5m"):
        avoided = _avoided(warm[-1], model, prices)
    return Pause(after, len(warm), cost, rewrite, avoided)
