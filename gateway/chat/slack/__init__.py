"""Slack on the gateway: Socket Mode (Bolt + slack_sdk), native streaming, Block Kit
approvals. adapter.py (connection, events in, writes out), events.py (event ->
Inbound), reply.py (streaming and splitting), settings.py (config.yaml and tokens)."""
