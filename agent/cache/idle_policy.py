"""Idle-gap policy: what to do with a warm cache while the user pauses.

Pure and clock-free: the keeper (agent/cache/keeper.py) and the benchmark (bench/idle_gaps.py)
drive the same functions. Costs are in "input-token equivalents" (tokens x price
multiplier of the model's input price), so the choice does not depend on the dollar price.

Three ways to carry a prefix of `P` tokens across a pause of `g` seconds:
- let it expire: if g > TTL the next request writes P again (w5 - r) x P more than a read;
- keep-warm reads: the previous request replayed (max_tokens 0, or a 1-token output) before the
  entry expires (every TTL - MARGIN seconds), r x P each; it refreshes the entry;
- a 1h TTL for a call's writes (decided per call, before it is sent: the pause may come
  after it): (w1 - w5) x the tokens that call writes, and the entry lives an hour; worth
  it only if the call ends its turn and the session has paused long before.

The pause pattern is learned from the session's own inter-turn gaps on top of a weak
prior (PRIOR_GAPS, pseudo-observations). The keep-warm stop rule is the ski-rental one
with the learned distribution: at each wake-up, conditioned on the pause having lasted
so far, keep paying for reads only while the expected cost of the reads still to come is
below the expected rewrite they avoid; a hard cap (max idle) ends it regardless.
The prior is weak (PRIOR_WEIGHT pseudo-observations) so that a session without pauses
stops paying the 1h premium after its first few turns.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

FIVE_MINUTES = 300.0
ONE_HOUR = 3600.0
MARGIN = 30.0  # a keep-warm read goes this long before the entry would expire
ABANDONED = math.inf  # a gap that never ends: the user did not come back

# A weak prior over pauses between turns (seconds, weight): mostly seconds, some minutes,
# a few long breaks, some sessions never resumed (scaled to PRIOR_WEIGHT).
PRIOR_GAPS: tuple[tuple[float, float], ...] = (
    (30.0, 3.0), (180.0, 0.75), (600.0, 0.5), (5400.0, 0.25), (ABANDONED, 0.5),
)
# Before a session's first return (one request so far) on the gateway: an API client's
# single request is weak evidence of a person coming back - most such sessions are
# one-off calls, so keep-warm reads do not pay until the session has come back once.
ONE_REQUEST_PRIOR: tuple[tuple[float, float], ...] = (
    (30.0, 0.5), (180.0, 0.25), (600.0, 0.15), (5400.0, 0.1), (ABANDONED, 4.0),
)
PRIOR_WEIGHT = 2.0
MAX_KEEP_WARM_READS = 240
SPREAD = 2.0  # smoothing of each observed gap (log-uniform over [g/2, 2g])  # planning horizon of the stop rule


@dataclass(frozen=True)
class Rates:
    """Price multipliers on the input price (docs/CACHING.md section 1)."""

    read: float = 0.1
    write_5m: float = 1.25
    write_1h: float = 2.0
    output: float = 5.0  # output price / input price (the keep-warm's one token)


@dataclass
class GapModel:
    """A session's pause history on top of the prior (empirical, weighted)."""

    gaps: list[float] = field(default_factory=list)
    prior: tuple[tuple[float, float], ...] = PRIOR_GAPS
    first: tuple[tuple[float, float], ...] | None = None  # the prior until a gap is seen
    _points: list[tuple[float, float]] | None = field(default=None, repr=False)
    _index: _Index | None = field(default=None, repr=False, compare=False)

    def observe(self, seconds: float) -> None:
        self.gaps.append(max(0.0, float(seconds)))

    @property
    def has_paused(self) -> bool:
        """The session has paused past the default TTL at least once."""
        return self.paused_past(FIVE_MINUTES)

    def paused_past(self, seconds: float) -> bool:
        """The session itself (not the prior) has paused longer than `seconds`."""
        return any(g > seconds for g in self.gaps)

    def points(self) -> list[tuple[float, float]]:
        prior = self.first if self.first is not None and not self.gaps else self.prior
        scale = PRIOR_WEIGHT / sum(w for _g, w in prior)
        if self._points is None or len(self._points) != len(prior) + len(self.gaps):
            self._points = ([(g, w * scale) for g, w in prior]
                            + [(g, 1.0) for g in self.gaps])
            self._index = None
        return self._points

    def _sorted(self) -> _Index:
        points = self.points()
        if self._index is None:
            self._index = _Index.of(points)
        return self._index

    def survival(self, t: float, given: float = 0.0) -> tuple[float, float]:
        """(P(gap > t | gap > given), P(t < gap < inf | gap > given)), each gap smoothed
        log-uniformly over [g / SPREAD, g * SPREAD] (a few gaps make a lumpy histogram).
        Sorted gaps: only those within a factor SPREAD of t cost a logarithm (the keeper
        asks this many times per turn, and a long session has many gaps)."""
        index = self._sorted()
        alive = index.abandoned + index.mass_above(given)
        finite = index.mass_above(max(t, given))
        if alive <= 0:
            return 0.0, 0.0
        return (index.abandoned + finite) / alive, finite / alive


@dataclass(frozen=True)
class _Index:
    """Finite gaps sorted, with suffix sums of their weights; the abandoned weight."""

    gaps: list[float]
    weights: list[float]
    suffix: list[float]  # suffix[i] = sum(weights[i:])
    abandoned: float

    @classmethod
    def of(cls, points: list[tuple[float, float]]) -> _Index:
        finite = sorted((g, w) for g, w in points if g != ABANDONED)
        weights = [w for _g, w in finite]
        suffix = [0.0] * (len(weights) + 1)
        for i in range(len(weights) - 1, -1, -1):
            suffix[i] = suffix[i + 1] + weights[i]
        return cls([g for g, _w in finite], weights, suffix,
                   sum(w for g, w in points if g == ABANDONED))

    def mass_above(self, t: float) -> float:
        """Sum of w x P(a gap smoothed around g lasts longer than t) over finite gaps."""
        low = bisect.bisect_right(self.gaps, t / SPREAD)  # below: over before t
        high = bisect.bisect_left(self.gaps, t * SPREAD)  # from here: all still going
        mass = self.suffix[high]
        for i in range(low, high):
            mass += self.weights[i] * _above(self.gaps[i], t)
        return mass


def _above(g: float, t: float) -> float:
    """P(a gap smoothed around g lasts longer than t)."""
    low, high = g / SPREAD, g * SPREAD
    if t <= low:
        return 1.0
    if t >= high:
        return 0.0
    return math.log(high / t) / math.log(high / low)


def _plan(model: GapModel, prefix: float, ttl: float, rates: Rates, elapsed: float,
          expires: float, max_reads: int) -> list[float]:
    """Expected cost of n = 0..max_reads further keep-warm reads, then letting the entry
    expire (the pause lasted `elapsed`; the entry expires at `expires`)."""
    one = rates.read * prefix + rates.output
    rewrite = (rates.write_5m - rates.read) * prefix
    # GapModel.survival(t, elapsed) inlined: P(gap > elapsed) is the same for every t
    index = model._sorted()
    alive = index.abandoned + index.mass_above(elapsed)
    if alive <= 0:
        return [rewrite * 0.0]
    costs = [rewrite * (index.mass_above(max(expires, elapsed)) / alive)]
    spent = 0.0
    for _ in range(max_reads):
        t = expires - MARGIN
        longer = (index.abandoned + index.mass_above(max(t, elapsed))) / alive
        if longer <= 0.0:
            break
        spent += one * longer
        expires = t + ttl
        costs.append(spent + rewrite * (index.mass_above(max(expires, elapsed)) / alive))
    return costs


def keep_warm_cost(model: GapModel, prefix: float, ttl: float, rates: Rates, *,
                   elapsed: float = 0.0, reads: int, expires: float | None = None) -> float:
    """Expected cost of `reads` more keep-warm reads from now, then letting it expire."""
    costs = _plan(model, prefix, ttl, rates, elapsed, ttl if expires is None else expires, reads)
    return costs[min(reads, len(costs) - 1)]


def best_reads(model: GapModel, prefix: float, ttl: float, rates: Rates, *,
               elapsed: float = 0.0, expires: float | None = None,
               max_reads: int = MAX_KEEP_WARM_READS) -> tuple[int, float]:
    """The number of further keep-warm reads with the least expected cost, and that cost."""
    costs = _plan(model, prefix, ttl, rates, elapsed, ttl if expires is None else expires,
                  max_reads)
    n = min(range(len(costs)), key=lambda i: (costs[i] + 1e-9 * i))
    return n, costs[n]


def reads_within(max_idle: float, ttl: float) -> int:
    """How many keep-warm reads fit in a pause of at most `max_idle` seconds."""
    return max(0, min(MAX_KEEP_WARM_READS, int((max_idle - ttl + MARGIN) // (ttl - MARGIN)) + 1))


def choose_ttl(model: GapModel, prefix: float, written: float, rates: Rates, *,  # noqa: PLR0913
               max_idle: float, short: float = FIVE_MINUTES, long: float = ONE_HOUR,
               ends_turn: float = 1.0) -> str:
    """The lifetime for one call's breakpoints: "1h" when its premium on the tokens
    this call writes (`written`) is below the expected saving over the best 5m plan.

    The saving is only had if the pause follows this call, i.e. if the call ends its
    turn (`ends_turn`: the chance of that; a call answered with tool calls is followed
    by the next call within seconds, and its 1h write is wasted). A premium is never
    paid on the prior alone: before the session itself paused past the short lifetime,
    keep-warm reads (decided during the pause, when it is seen) carry the first long
    pause, and the prior's long gaps never justify paying 2x on every write from the
    second turn on. `short`/`long` are what "5m"/"1h" last on the provider (GPT-5.6+:
    30m/12h, whose writes cost the same 1.25x: no premium, so the long one wins)."""
    premium = (rates.write_1h - rates.write_5m) * written
    if premium > 0 and not model.paused_past(short):
        return "5m"
    short_cost = best_reads(model, prefix, short, rates,
                            max_reads=reads_within(max_idle, short))[1]
    long_cost = best_reads(model, prefix, long, rates, max_reads=reads_within(max_idle, long))[1]
    return "1h" if premium < ends_turn * (short_cost - long_cost) else "5m"


@dataclass(frozen=True)
class Decision:
    """What to do next for an idle session: `action` is "read" (a keep-warm read at
    `at` seconds into the pause) or "stop" (let the entry expire); `why` is for logs."""

    action: str
    at: float = 0.0
    why: str = ""


def next_step(model: GapModel, *, prefix: float, ttl: float, elapsed: float, expires: float,
              rates: Rates, max_idle: float) -> Decision:
    """The keeper's decision at `elapsed` seconds into a pause, the entry expiring at
    `expires` (seconds into the pause)."""
    at = max(elapsed, expires - MARGIN)
    if at > max_idle:
        return Decision("stop", why=f"past the max idle time ({max_idle:.0f}s)")
    cap = max(0, int((max_idle - at) // max(1.0, ttl - MARGIN)) + 1)
    reads, _cost = best_reads(model, prefix, ttl, rates, elapsed=elapsed, expires=expires,
                              max_reads=min(cap, MAX_KEEP_WARM_READS))
    if reads == 0:
        return Decision("stop", why="further reads are not expected to pay")
    return Decision("read", at=at, why=f"{reads} read(s) expected to pay")
