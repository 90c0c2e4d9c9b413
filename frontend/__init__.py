"""The front-end kit: what every front end (the REPL, one-shot, the HTTP gateway, chat
platforms) shares, so a new front end writes its I/O and nothing else.

- settings: HERMES_HOME, config.yaml, .env and provider resolution (typed Settings);
- setup: command-line style Flags + Settings -> AgentConfig, the store;
- factory: one agent factory (resume/continue, start-up warnings as notices);
- outcome: one folding of a turn's events into a result (answer, usage, cost, stop
  reason, warnings vs the error);
- commands: one implementation of each slash command, acting on a session handle and
  returning a Reply the front end renders its own way.

Layer: front ends (hermes_cli, gateway) import this; it imports agent, memory, skills
and never a front end.
"""
