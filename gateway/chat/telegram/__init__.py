"""Telegram on python-telegram-bot: facts.py (what everyone reads), boot.py (settings ->
the adapter), adapter.py (long polling, writes, approvals), reply.py (a streamed answer)."""
