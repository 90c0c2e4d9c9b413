"""When a model's price depends on the hour (genai-prices' time-of-day prices: a
provider's peak hours) - what an off-peak schedule asks (`hermes cron add --off-peak`).

From the bundled data only (`price_source`): a model with no time-of-day price is never
"peak". Windows are UTC, as the data states them.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from agent.providers import price_source

Window = tuple[time, time]  # [start, end) UTC; an end before the start wraps midnight


def _windows(model: str) -> tuple[Window, ...]:
    """Every time-of-day window the data prices `model` by, as (start, end) UTC."""
    from genai_prices.types import TimeOfDateConstraint  # loaded with the data

    found = price_source.find(model)
    if found is None:
        return ()
    prices = found.prices if isinstance(found.prices, list) else []  # one price: no hours
    return tuple((c.constraint.start_time.replace(tzinfo=None),
                  c.constraint.end_time.replace(tzinfo=None))
                 for c in prices if isinstance(c.constraint, TimeOfDateConstraint))


def _inside(window: Window, moment: datetime) -> bool:
    now, (start, end) = moment.astimezone(UTC).time().replace(tzinfo=None), window
    return start <= now < end if start <= end else (now >= start or now < end)


def _input_at(model: str, moment: datetime) -> float:
    found = price_source.rates(model, at=moment)
    return found.input if found is not None else 0.0


def peak_windows(model: str, day: datetime | None = None) -> tuple[Window, ...]:
    """The windows in which `model` costs more than outside every window (on `day`'s
    prices; None: today)."""
    day = (day or datetime.now(UTC)).astimezone(UTC)
    windows = _windows(model)
    midnight = day.replace(hour=0, minute=0, second=0, microsecond=0)
    outside = next((midnight + timedelta(minutes=m) for m in range(0, 1440, 30)
                    if not any(_inside(w, midnight + timedelta(minutes=m)) for w in windows)), None)
    if outside is None:
        return ()
    base = _input_at(model, outside)
    return tuple(w for w in windows
                 if _input_at(model, midnight.replace(hour=w[0].hour, minute=w[0].minute)) > base)


def is_peak(model: str, at: datetime) -> bool:
    """Whether a call to `model` at `at` pays a peak price."""
    return any(_inside(w, at) for w in peak_windows(model, at))


def next_off_peak(model: str, at: datetime) -> datetime:
    """`at` when it is off-peak for `model`, else the end of the peak window it falls in
    (windows that meet are crossed together)."""
    moment = at.astimezone(UTC)
    for _ in range(24):
        inside = [w for w in peak_windows(model, moment) if _inside(w, moment)]
        if not inside:
            return moment
        end = inside[0][1]
        ends = moment.replace(hour=end.hour, minute=end.minute, second=0, microsecond=0)
        moment = ends if ends > moment else ends + timedelta(days=1)
    return moment
