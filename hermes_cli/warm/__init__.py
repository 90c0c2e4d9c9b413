"""Warm start: one resident interpreter per user and installation that has the provider
SDKs and hermes' modules imported, from which `hermes -q` and `hermes acp` are forked.

`import anthropic` alone costs ~1.2 s of CPU (thousands of modules, >1,500 pydantic
models built at import); a one-shot run forked from a process that paid it once starts
answering in a fraction of that. `place` names the socket (per user, per installation
fingerprint), `client` hands a run to the server or starts one, `server` listens and
forks, `child` turns a fork into the run the user asked for. HERMES_WARM=0 turns it off.
"""
