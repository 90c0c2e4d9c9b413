"""Which database the session store lives in, from the user's settings.

The gateway's `--database-url-file PATH` (or `--database-url` without a password) wins
over `HERMES_DATABASE_URL` (the environment, then HERMES_HOME/.env), which wins over
config.yaml's `database_url`; none set: SQLite in HERMES_HOME/state.db. The URL is a
settings value: read from there, never written into the process environment or onto a
command line, so no tool process inherits or sees it. A URL is checked before anything
connects, and a bad one is one line saying what is wrong and how to fix it - with any
password masked (memory/redact.py).
"""

from __future__ import annotations

import os
from typing import Any

from agent.errors import ConfigError
from memory import open_store
from memory.redact import redact_url

ENV = "HERMES_DATABASE_URL"


def database_url(settings: Any, environ: dict[str, str] | None = None) -> str | None:
    """The configured PostgreSQL URL, validated; None for SQLite."""
    env = os.environ if environ is None else environ
    given = getattr(settings, "database_url", None)  # (url, source): a flag or .env
    value: Any = env.get(ENV)
    source = f"{ENV}"
    if given is not None and (given[1].startswith("--") or value is None or not value.strip()):
        value, source = given
    if value is None or not value.strip():
        value = settings.get("database_url", None, kind=str)
        source = "config.yaml: `database_url`"
    if value is None or not str(value).strip():
        return None
    value = value.strip()
    from memory.db import is_postgres_url

    if not is_postgres_url(value):
        raise ConfigError(f"{source} must be a postgresql:// URL, got {redact_url(value)!r}",
                          "write it as postgresql://USER:PASSWORD@HOST:5432/DATABASE, or "
                          "unset it to keep the sessions in HERMES_HOME/state.db")
    from memory.db_postgres import check_url
    from memory.errors import StoreError

    try:
        check_url(value)
    except StoreError as exc:
        raise ConfigError(f"{source}: {exc.message}", exc.hint) from None
    return value


def open_configured_store(settings: Any, *, read_only: bool = False):
    """The session store the settings name (SQLite home files secured first)."""
    url = database_url(settings)
    if url is None and not read_only:
        from memory.private import secure_home

        secure_home(settings.home)
    return open_store(settings.home, url, read_only=read_only)
