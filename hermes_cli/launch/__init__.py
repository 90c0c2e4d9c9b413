"""Warm start, the launcher: one resident interpreter per user and installation that has
the provider SDKs and hermes' modules imported, from which the REPL, `hermes -q` and
`hermes acp` are forked.

`import anthropic` alone costs ~1.2 s of CPU (thousands of modules, >1,500 pydantic
models built at import); a run forked from a process that paid it once starts in a
fraction of that. `client` (run first by the `hermes` command: hermes_cli/entry.py) hands
a run to the server or starts one, `server` listens and forks, `child` turns a fork into
the run the user asked for. HERMES_WARM=0 turns it off. Shared facts: hermes_cli/warm/.
"""
