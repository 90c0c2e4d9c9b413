"""Which runs the warm start serves, decided from the command line alone (no parser, no
import beyond the standard library: it runs before anything else)."""

from __future__ import annotations

from hermes_cli.warm import settings

#: `hermes`'s subcommands but acp (tests/warm/ check it against the Typer app): these
#: start cold as before (quick ones, or long-lived servers of their own)
SUBCOMMANDS = frozenset({"config", "cron", "doctor", "gateway", "logs", "mcp", "models", "prompt", "ps",
                         "sessions", "setup", "skills", "warm"})


def wanted(argv: list[str], env: dict[str, str]) -> bool:
    """Served warm: the REPL, a one-shot run (-q) and the ACP server, unless turned off.
    Help, the version, the other subcommands (and a line we cannot classify without the
    CLI's parser: an option value that is a subcommand's name) start cold, as before."""
    if any(arg in ("-h", "--help", "--version", "--") for arg in argv):
        return False
    if argv[:1] != ["acp"] and any(arg in SUBCOMMANDS or arg == "acp" for arg in argv):
        return False
    return settings.read(env).on  # HERMES_WARM, HERMES_HOME/.env, config.yaml
