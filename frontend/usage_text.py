"""The one text of /usage, for every front end that shows text: HTTP sessions, ACP and
the chats (Telegram, Slack, Discord); the REPL draws the same report as a rich table
(hermes_cli/render/usage.py) with the same buckets.

Short lines, the figure first (it reads on a phone): every prompt token is in one
bucket - cache read, cache write (5-minute and 1-hour entries together), uncached - so
the three add up to the prompt. Unknown figures print as "unknown", never as 0
(docs/CACHING.md section 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.usage import usd

if TYPE_CHECKING:
    from frontend.usage_report import Totals, UsageReport

UNKNOWN = "unknown"


def _tokens(value: int | None) -> str:
    return UNKNOWN if value is None else f"{value:,}"


def _written(total: Totals) -> int | None:
    if total.write_5m is None or total.write_1h is None:
        return None
    return total.write_5m + total.write_1h


def usage_text(report: UsageReport, extra: Sequence[str] = ()) -> str:
    """The session's usage in short lines (`extra`: the front end's own last lines, a
    budget or a chat's spend today)."""
    total = report.session
    if total.calls == 0:
        return "\n".join([f"No calls yet in this session ({report.model}).", *extra])
    hit = UNKNOWN if total.hit_rate is None else f"{total.hit_rate:.0%}"
    cost = UNKNOWN if total.cost is None else usd(total.cost)
    lines = [f"Cache hit rate: {hit}",
             f"Calls: {total.calls}  Cost: {cost}",
             f"Prompt: {total.prompt_tokens:,} tok",
             f"  cache read {_tokens(total.cache_read)}",
             f"  cache write {_tokens(_written(total))}",
             f"  uncached {total.uncached:,}",
             f"Output: {total.output:,} tok",
             f"Model: {report.model}"]
    if len(report.by_model) > 1:  # the session changed model (/model)
        lines += [f"- {m.model}: {m.calls} call{'s' if m.calls != 1 else ''}, "
                  f"{UNKNOWN if m.cost is None else usd(m.cost)}" for m in report.by_model]
    if report.misses:
        lines.append(f"Misses ({len(report.misses)}):")
        lines += [f"- turn {m.turn}: {m.cause}" for m in report.misses[-3:]]
    else:
        lines.append("Misses: none")
    return "\n".join([*lines, *extra])
