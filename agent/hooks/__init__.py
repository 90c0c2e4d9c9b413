"""Lifecycle hooks: programs the user configured, run at the seams of a session.

`config` parses `hooks:` (config.yaml, a trusted project's .hermes/config.yaml) into
`Hooks` (event -> matcher groups -> commands); `runner` runs one command (JSON on stdin,
the tools' environment allowlist, a timeout) and reads its answer; `events` fires an
event for a session and turns the answers into what the runtime does (block, context,
warnings). See docs/HOOKS.md.
"""
