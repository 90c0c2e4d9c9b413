"""Render a UsageReport with rich, and the one-line text of the REPL's bottom toolbar.

Unknown figures print as "unknown", never as 0 (docs/CACHING.md section 5).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from frontend.usage_report import Totals, UsageReport
from hermes_cli.render.idle import idle_lines

UNKNOWN = "unknown"
SPARK_CHARS = "▁▂▃▄▅▆▇█"
SPARK_UNKNOWN = "?"
SPARK_MAX_TURNS = 60


# -- formatting -----------------------------------------------------------------------


def fmt_int(value: int | None) -> str:
    """12345 -> "12,345"; None -> "unknown"."""
    return UNKNOWN if value is None else f"{value:,}"


def fmt_money(value: float | None) -> str:
    """Dollars with 4 decimals (6 below a cent); None -> "unknown"."""
    if value is None:
        return UNKNOWN
    digits = 6 if 0 < abs(value) < 0.01 else 4
    return f"${value:,.{digits}f}"


def fmt_ratio(value: float | None) -> str:
    """A 0..1 ratio as a percentage with one decimal; None -> "unknown"."""
    return UNKNOWN if value is None else f"{value * 100:.1f}%"


def fmt_percent(value: float | None) -> str:
    """A 0..100 percentage with one decimal; None -> "unknown"."""
    return UNKNOWN if value is None else f"{value:.1f}%"


def _cost_cell(totals: Totals) -> str:
    if totals.cost is None:
        return f"{UNKNOWN} ({totals.priced_calls}/{totals.calls} priced)"
    return fmt_money(totals.cost)


def _storage_cell(totals: Totals) -> str:
    """Token-hours of explicit-cache storage and what they cost (inside "cost")."""
    money = UNKNOWN if totals.storage_cost is None else fmt_money(totals.storage_cost)
    return f"{totals.stored_token_hours:,.0f} tok·h {money}"


def _meter_cell(totals: Totals, meter: dict[str, Any]) -> str:
    """A meter's quantity and cost in `totals` ("-" when it has none there)."""
    found = next((m for m in totals.meters if (m["name"], m["unit"]) == (meter["name"],
                                                                          meter["unit"])), None)
    if found is None:
        return "-"
    return f"{found['quantity']:,.6g} {found['unit']} {fmt_money(found['cost_usd'])}"


def sparkline(rates: list[float | None]) -> str:
    """One character per turn: ▁ (0%) .. █ (100%), '?' for an unknown hit rate."""
    chars = []
    for rate in rates:
        if rate is None:
            chars.append(SPARK_UNKNOWN)
        else:
            clamped = min(max(rate, 0.0), 1.0)
            chars.append(SPARK_CHARS[round(clamped * (len(SPARK_CHARS) - 1))])
    return "".join(chars)


# -- pieces of the report -------------------------------------------------------------


def totals_table(report: UsageReport) -> Table:
    """The "this turn" vs "session" table."""
    table = Table(title="usage", title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("")
    table.add_column("this turn", justify="right")
    table.add_column("session", justify="right")
    turn, session = report.turn, report.session
    lines = [
        ("calls", fmt_int(turn.calls), fmt_int(session.calls)),
        ("uncached", fmt_int(turn.uncached), fmt_int(session.uncached)),
        ("cache write 5m", fmt_int(turn.write_5m), fmt_int(session.write_5m)),
        ("cache write 1h", fmt_int(turn.write_1h), fmt_int(session.write_1h)),
        ("cache read", fmt_int(turn.cache_read), fmt_int(session.cache_read)),
        ("output", fmt_int(turn.output), fmt_int(session.output)),
        ("cost", _cost_cell(turn), _cost_cell(session)),
        ("hit rate", fmt_ratio(turn.hit_rate), fmt_ratio(session.hit_rate)),
    ]
    if session.stored_token_hours:  # an explicit cache's storage (Gemini): its own line
        lines.insert(-1, ("cache storage", _storage_cell(turn), _storage_cell(session)))
    for meter in session.meters:  # what else a provider billed: one line per meter
        lines.insert(-1, (meter["name"].replace("_", " "), _meter_cell(turn, meter),
                          _meter_cell(session, meter)))
    unreported = _unreported_rows(report)
    for label, this_turn, whole in lines:
        if label not in unreported:
            table.add_row(label, this_turn, whole)
    return table


def _unreported_rows(report: UsageReport) -> set[str]:
    """Rows the model's cache never reports (its cache model's `reports_writes`: OpenAI
    has no cache writes, only reads): left out rather than shown as zeros."""
    from agent.providers import models, registry

    info = models.lookup(report.model) if report.model else None
    if info is None or registry.maker_cache(info.provider, report.model).reports_writes:
        return set()
    turn, session = report.turn, report.session
    return {label for label, a, b in (("cache write 5m", turn.write_5m, session.write_5m),
                                      ("cache write 1h", turn.write_1h, session.write_1h))
            if not a and not b}


def savings_line(report: UsageReport) -> Text:
    """ "caching saved $X (Y%)", or why the savings are unknown."""
    session = report.session
    if session.calls == 0:
        return Text("no calls yet")
    if session.savings is None:
        if report.unpriced_models:
            return Text(f"savings unknown (price unknown for {', '.join(report.unpriced_models)})")
        if not session.cache_known:
            return Text("savings unknown (the provider reported no cache data)")
        return Text("savings unknown")
    percent = fmt_percent(session.savings_percent)
    if session.savings < 0:
        extra = fmt_percent(None if session.savings_percent is None else -session.savings_percent)
        return Text(f"caching cost {fmt_money(-session.savings)} more than no caching (+{extra})")
    return Text(f"caching saved {fmt_money(session.savings)} ({percent})")


def prices_line(report: UsageReport) -> Text:
    """ "prices: genai-prices 0.2.3 (data of 2026-11)" - what the costs were priced with."""
    parts = list(report.price_sources)
    if report.unpriced_models:
        parts.append(f"{UNKNOWN} for {', '.join(report.unpriced_models)}")
    return Text(f"prices: {'; '.join(parts) or UNKNOWN}", style="dim")


def by_model_line(report: UsageReport) -> Text:
    """ "by model: claude-sonnet-5 2 calls $0.0123 · gpt-5.2 1 call $0.0040" """
    parts = [f"{m.model} {m.calls} call{'s' if m.calls != 1 else ''} {fmt_money(m.cost)}"
             for m in report.by_model]
    return Text("by model: " + " · ".join(parts))


def context_line(report: UsageReport) -> Text:
    """ "context used/window (p%)"."""
    ctx = report.context
    return Text(f"context {fmt_int(ctx.used)} / {fmt_int(ctx.window)} "
                f"({fmt_percent(ctx.percent)}) - {report.model or UNKNOWN}")


def misses_table(report: UsageReport) -> Table | Text:
    """One row per cache miss, or the text "no cache misses"."""
    if not report.misses:
        return Text("no cache misses")
    table = Table(title="cache misses", title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("turn", justify="right")
    table.add_column("cause")
    table.add_column("tokens", justify="right")
    table.add_column("explanation", overflow="fold")
    for miss in report.misses:
        explanation = Text(miss.explanation)
        if miss.detail and miss.detail not in miss.explanation:
            explanation.append(f" ({miss.detail})", style="dim")
        table.add_row(str(miss.turn), Text(miss.cause), fmt_int(miss.missed_tokens), explanation)
    return table


def per_turn_line(report: UsageReport) -> Text:
    """The per-turn hit-rate sparkline (the last SPARK_MAX_TURNS turns)."""
    rates = [item.hit_rate for item in report.per_turn]
    prefix = "…" if len(rates) > SPARK_MAX_TURNS else ""
    spark = sparkline(rates[-SPARK_MAX_TURNS:])
    return Text(f"hit rate by turn: {prefix}{spark or '-'}  (▁ 0% .. █ 100%, ? unknown)")


# -- public entry points ----------------------------------------------------------------


def render_report(console: Console, report: UsageReport) -> None:
    """Print the whole /usage report to `console`."""
    console.print(totals_table(report))
    console.print(savings_line(report))
    console.print(Text(f"read from other sessions' writes (first calls; prefix sharing): "
                       f"{fmt_int(report.shared_read)} tokens"))
    if len(report.by_model) > 1:  # the session changed model (/model)
        console.print(by_model_line(report))
    console.print(prices_line(report))
    console.print(context_line(report))
    console.print(misses_table(report))
    console.print(per_turn_line(report))
    for line in idle_lines(report):
        console.print(line)


def no_calls_line(report: UsageReport, model: str | None = None) -> Text:
    """The REPL's /usage before the first call: one line instead of a table of zeros
    (`model` is the agent's current one, which /model may have changed since)."""
    window = report.context.window
    size = "" if window is None else f", context window {fmt_int(window)} tokens"
    return Text(f"no calls yet in this session - the figures start with the first message "
                f"({model or report.model or UNKNOWN}{size})")


def toolbar_text(report: UsageReport, model: str | None = None) -> str:
    """One line for the REPL's bottom toolbar: model, context %, session hit rate, cost.

    `model` is the agent's current model (it differs from the last call's after /model)."""
    session = report.session
    if not session.calls:  # nothing measured yet: "-" rather than "unknown"
        return f"{model or report.model or UNKNOWN} | ctx - | hit - | cost -"
    return (f"{model or report.model or UNKNOWN} | ctx {_context(report)} | "
            f"hit {fmt_ratio(session.hit_rate)} | cost {fmt_money(session.cost)}")


def _context(report: UsageReport) -> str:
    """"20.5k/200k (10.3%)": context used / window and percent, compactly."""
    used, window = report.context.used, report.context.window
    if used is None or window is None:
        return fmt_percent(report.context.percent)
    return f"{_short(used)}/{_short(window)} ({fmt_percent(report.context.percent)})"


def _short(tokens: int) -> str:
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.3g}M"
    if tokens >= 1_000:
        return f"{tokens / 1_000:.3g}k"
    return str(tokens)
