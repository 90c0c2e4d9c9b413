"""`hermes doctor`: one screen saying what works and what does not, each problem with
its fix (docs/OPERATOR.md).

`report` (a check's result, running checks concurrently with deadlines, the screen, the
exit code), `provider` (the key and where it was read, one models-list call), `local`
(config files, the store's migrations, the sandbox, MCP servers, the warm start, a
gateway, versions). The chat platforms' token checks are the gateway's
(`gateway/chat/probe.py`), handed in by `hermes_cli/app.py`.
"""
