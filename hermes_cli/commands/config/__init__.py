"""`hermes config` and `hermes setup`: config.yaml and HERMES_HOME/.env from the shell.

`files` (config.yaml edited with ruamel.yaml, comments and order kept; .env lines set
with mode 0600), `command` (list, get, set, unset: values in force through
frontend/config_view.py, keys checked against frontend/config/schema.py), `wizard`
(`hermes setup`: the questions, or the same from flags, then doctor's provider check).
"""
