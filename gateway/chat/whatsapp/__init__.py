"""WhatsApp on the gateway (the Cloud API over plain httpx): facts.py (the platform's
facts, pure data), settings.py (config.yaml and the three secrets), webhook.py (the
signed webhook: verification, parsing, dedupe), adapter.py (sending through the budget,
approvals as reply buttons)."""
