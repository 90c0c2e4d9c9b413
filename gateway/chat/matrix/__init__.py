"""Matrix on the gateway (matrix-nio's AsyncClient): facts.py (the platform's facts, pure
data), settings.py (config.yaml and the token), adapter.py (sync loop, invites, writes
through the budget), events.py (event -> Inbound, mentions), reply.py (streamed edits,
splitting within the event size limit)."""
