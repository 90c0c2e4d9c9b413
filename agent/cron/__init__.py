"""Scheduled jobs' parts below the front ends: when a schedule fires (`schedule`,
`cronexpr`), which worker runs a fire (`due`), where an answer may go (`targets`). The
store's tables are `memory.cron`; creating and running jobs `frontend.cron`'s; the
scheduler and delivery `gateway.cron`'s."""
