"""/usage lines for the user's pauses: keep-warm reads, what they cost and saved, and
what each expired pause cost (figures from agent/cache/idle_report.py)."""

from __future__ import annotations

from rich.text import Text

from agent.usage import usd
from frontend.usage_report import UsageReport

UNKNOWN = "unknown"
MAX_PAUSES = 5  # the most recent pauses listed one per line


def _money(value: float | None) -> str:
    return UNKNOWN if value is None else usd(value)


def idle_lines(report: UsageReport) -> list[Text]:
    """ "kept warm: 2 reads, $0.0040; rewrite avoided: ~$0.0600", then one line per recent
    pause that cost something; nothing when no pause cost anything."""
    idle = report.idle
    if idle is None or not idle.pauses:
        return []
    lines = [Text(f"kept warm: {idle.keep_warm_reads} read{'s' if idle.keep_warm_reads != 1 else ''}, "
                  f"{_money(idle.keep_warm_cost)}; rewrite avoided: ~{_money(idle.avoided)}; "
                  f"expired pauses: {idle.rewrites}, rewrites {_money(idle.rewrite_cost)}")]
    for pause in idle.pauses[-MAX_PAUSES:]:
        parts = []
        if pause.keep_warm_reads:
            parts.append(f"{pause.keep_warm_reads} keep-warm read(s) {_money(pause.keep_warm_cost)}")
        if pause.rewrite_cost:
            parts.append(f"rewrite after expiry {_money(pause.rewrite_cost)}")
        if pause.avoided:
            parts.append(f"avoided ~{_money(pause.avoided)}")
        lines.append(Text(f"  pause after turn {pause.after_turn}: {'; '.join(parts)}", style="dim"))
    return lines
