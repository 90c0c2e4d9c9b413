"""Scheduled jobs as every front end sees them: `jobs` (create with every check, the
checks a run repeats), `run` (one run:
a fresh session of the job, pinned model, its budget, the prompt's cache discipline),
`listing` (the table `hermes cron list` and `/cron` show)."""
