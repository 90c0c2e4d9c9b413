"""Which cache lifetime a job's run writes with, by the keeper's expected-value arithmetic
(agent/cache/idle_policy.py): the gap until the job's next fire is known, so the "pause"
is that gap for certain; the run sends no keep-warm reads (nobody keeps a cron session).

A 1h write costs (write_1h - write_5m) x the tokens written more than a 5m one; it pays
when the next fire comes after 5 minutes but within the hour (then the next run reads
the prefix instead of writing it again). A daily job or a job every 3 minutes keeps 5m.
"""

from __future__ import annotations

from agent.cache.idle_policy import GapModel, Rates, choose_ttl


def job_ttl(gap: float | None, prefix_tokens: float, rates: Rates) -> str:
    """"5m" or "1h" for a run whose job fires again in `gap` seconds (None: never)."""
    if gap is None or gap <= 0 or prefix_tokens <= 0:
        return "5m"
    certain = GapModel(gaps=[gap], prior=((gap, 1.0),))
    return choose_ttl(certain, prefix_tokens, prefix_tokens, rates, max_idle=0.0)
