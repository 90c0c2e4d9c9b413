"""/usage in a form that reads well on a phone: short lines, the figure first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.usage import usd

if TYPE_CHECKING:
    from frontend.usage_report import UsageReport


def _tokens(n: int | None) -> str:
    if n is None:
        return "?"
    return f"{n / 1000:.1f}k" if n >= 10_000 else f"{n:,}"


def usage_text(report: UsageReport, daily: dict[str, Any] | None = None) -> str:
    """The session's usage report in a few short lines (`daily`: the owner's spend today)."""
    total = report.session
    if total.calls == 0:
        return f"No calls yet in this chat ({report.model})."
    hit = "?" if total.hit_rate is None else f"{total.hit_rate:.0%}"
    cost = "?" if total.cost is None else usd(total.cost)
    lines = [f"Cache hit rate: {hit}",
             f"Calls: {total.calls}  Cost: {cost}",
             f"Prompt: {_tokens(total.prompt_tokens)} tok",
             f"  cached {_tokens(total.cache_read)}, new {_tokens(total.uncached)}",
             f"Output: {_tokens(total.output)} tok",
             f"Model: {report.model}"]
    if report.misses:
        lines.append(f"Misses ({len(report.misses)}):")
        lines += [f"- turn {m.turn}: {m.cause}" for m in report.misses[-3:]]
    else:
        lines.append("Misses: none")
    if daily and daily.get("daily_usd") is not None:
        lines.append(f"Today: {usd(daily['spent_today_usd'])} of {usd(daily['daily_usd'])}")
    return "\n".join(lines)
