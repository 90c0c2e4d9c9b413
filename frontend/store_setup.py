"""Which database the session store lives in, from the user's settings.

`HERMES_DATABASE_URL` (environment or HERMES_HOME/.env) wins over config.yaml's
`database_url`; neither set: SQLite in HERMES_HOME/state.db. A URL is checked before
anything connects, and a bad one is one line saying what is wrong and how to fix it -
with any password masked (memory/redact.py).
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
    value: Any = env.get(ENV)
    source = f"{ENV}"
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
