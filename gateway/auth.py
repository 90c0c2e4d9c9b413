"""Client keys of the gateway: where they come from, how a request is checked, and the
owner id each key maps to.

Keys: `HERMES_API_KEY` (environment or HERMES_HOME/.env), `gateway.api_key` and the list
`gateway.api_keys` in config.yaml - all of them valid at once (an `api_keys` entry is a
key, or `{key: ..., rate_limit: {...}}`: gateway/ratelimit.py). A key's owner id is the
SHA-256 of the whole key: it namespaces sessions (the store's `owner` column) so one
key never sees another's sessions.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Iterable, Mapping

from agent.errors import ConfigError

ENV_KEY = "HERMES_API_KEY"
MIN_KEY_LENGTH = 8


def owner_id(key: str) -> str:
    """The owner id of a client key (SHA-256 hex of the whole key)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def configured_keys(settings, environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Every client key configured, in order, duplicates dropped. Raises ConfigError
    (with how to set one) when there is none or one is malformed."""
    env = os.environ if environ is None else environ
    found: list[str] = []
    single = settings.get("gateway.api_key", kind=str)
    many = settings.get("gateway.api_keys", [], kind=list)
    sources = [(env.get(ENV_KEY) or None, ENV_KEY), (single, "`gateway.api_key`")]
    sources += [((key.get("key") or "") if isinstance(key, dict) else key, "`gateway.api_keys`")
                for key in many]
    for key, source in sources:
        if key is None:
            continue
        if not isinstance(key, str) or len(key.strip()) < MIN_KEY_LENGTH:
            where = (f"in the environment or {settings.home}/.env" if source == ENV_KEY
                     else f"in {settings.home}/config.yaml")
            raise ConfigError(f"gateway API keys must be strings of at least {MIN_KEY_LENGTH} "
                              "characters", f"fix {source} {where} (an `api_keys` entry is "
                              "a key or `{key: ..., rate_limit: {...}}`)")
        if key.strip() not in found:
            found.append(key.strip())
    if not found:
        raise ConfigError(
            "the gateway refuses to start without an API key for its clients",
            f"set {ENV_KEY}=<a long random secret> (shell or {settings.home}/.env), or "
            f"`gateway: {{api_key: ...}}` / `gateway: {{api_keys: [...]}}` in "
            f"{settings.home}/config.yaml; clients then send `Authorization: Bearer <key>`",
        )
    return tuple(found)


class KeyRing:
    """The accepted keys; `owner(header)` -> owner id or None (constant-time compare)."""

    def __init__(self, keys: Iterable[str]) -> None:
        # digests of the keys: every comparison is over 32 bytes, so neither the length
        # of a key nor how much of it a guess got right shows in the time taken
        self._keys = tuple((_digest(k), owner_id(k)) for k in keys)
        if not self._keys:
            raise ValueError("a KeyRing needs at least one key")

    def owner(self, authorization: str | None) -> str | None:
        """The owner id for an `Authorization: Bearer KEY` header value, else None."""
        scheme, _, token = (authorization or "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return None
        given = _digest(token)
        match = None
        for digest, owner in self._keys:  # compare with every key: the time does not tell which
            if hmac.compare_digest(given, digest):
                match = owner
        return match


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()
