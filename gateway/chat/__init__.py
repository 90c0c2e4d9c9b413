"""Chat platforms on the gateway (Telegram; a console platform for tests): see base.py."""
