"""The gateway's scheduler of jobs (`scheduler`: the tick, claims, runs in worker threads)
and the delivery of their answers (`deliver`: file, Telegram, a chat's origin; bounded
retries, failures recorded with the text kept)."""
