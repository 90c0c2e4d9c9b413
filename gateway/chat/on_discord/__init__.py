"""Discord: the gateway websocket through discord.py (client.py: pointing the client at
`gateway.discord.base_url`; adapter.py: messages, threads, replies, approvals)."""
