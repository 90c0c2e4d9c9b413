"""Scheduled jobs' pure parts: when a schedule fires (`schedule`, `cronexpr`), what a
job is (`job`), and the text one run of a job sends (`prompt`). The store's tables are
`memory.cron`; running and delivering are `gateway.cron`'s."""
