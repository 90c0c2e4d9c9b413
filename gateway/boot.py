"""Building the gateway from the user's settings, and `hermes gateway` itself.

config.yaml:
    gateway:
      api_key: ...            # or api_keys: [...]; or HERMES_API_KEY in the environment
      max_agents: 128         # agents kept in memory (LRU); sessions beyond live in SQLite
      idle_ttl: 3600          # seconds an unused agent stays cached
      workers: 64             # turns running at once (threads)
      daily_usd_per_key: 10   # per API key per UTC day; over it: HTTP 429 until 00:00 UTC
      rate_limit: {requests_per_minute: 60, tokens_per_minute: 200000}  # per key; an
                              # api_keys entry {key: ..., rate_limit: {...}} has its own
      metrics_key: ...        # opens GET /metrics (Prometheus) to this Bearer key only
      access_log: stderr      # one JSON line per request: stderr, a file path, or off
      access_log_rate: 50     # lines per second at most; the rest counted and summarised
"""

from __future__ import annotations

import ipaddress
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.errors import ConfigError
from gateway.auth import KeyRing, configured_keys
from gateway.library_logs import set_library_logs

if TYPE_CHECKING:  # types only; the modules themselves load when a gateway is built
    from starlette.applications import Starlette

    from frontend.config.settings import Settings
    from frontend.setup import Flags
    from gateway.guard import Limits
    from gateway.sessions import Gateway

# Function-level imports below: `hermes` imports this module to launch the gateway;
# the gateway's own modules (Starlette, the SDK pools, the store) load only then.

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8642


def build_gateway(settings: Settings, cwd: Path,
                  flags: Flags | None = None) -> tuple[Gateway, Callable[[], None]]:
    """(the shared Gateway, a function closing its databases) for `settings`. `flags`
    (frontend.setup.Flags: --model, --provider, --base-url) win over config.yaml, which
    wins over the environment - the CLI's precedence."""
    from frontend.config.store_setup import database_url
    from frontend.personalities import available
    from frontend.setup import Flags, agent_config, open_store
    from gateway.ratelimit import RateLimits, configured_rates
    from gateway.routes import RouteTable
    from gateway.sessions import Gateway
    from gateway.transcripts import TranscriptIndex

    base = agent_config(settings, flags or Flags(), cwd, source="gateway")
    store = open_store(settings)
    url = database_url(settings)
    routes = RouteTable.open(settings.home, url)
    transcripts = TranscriptIndex.open(settings.home, url)
    gateway = Gateway(
        base, store, routes,
        personalities=available(settings.get("personalities", {}, kind=dict)),
        max_agents=settings.get("gateway.max_agents", 128, kind=int),
        idle_ttl=float(settings.get("gateway.idle_ttl", 3600, kind=(int, float))),
        workers=settings.get("gateway.workers", 64, kind=int),
        daily_usd_per_key=_daily_limit(settings),
        transcripts=transcripts,
        rates=RateLimits(store, *configured_rates(settings)),
    )

    def close() -> None:
        transcripts.close()
        routes.close()
        store.close()

    return gateway, close


def build_app(settings: Settings, cwd: Path, flags: Flags | None = None, *,
              access_log: str | None = None) -> Starlette:
    """The Starlette app for `settings`, with the configured chat platforms attached
    (raises ConfigError with a fix-it hint); `access_log` over `gateway.access_log`."""
    from gateway import access_log as access_log_module
    from gateway.chat import boot as chats
    from gateway.server import create_app

    keys = KeyRing(configured_keys(settings))
    platforms = chats.configured(settings)
    rate = float(settings.get("gateway.access_log_rate", access_log_module.DEFAULT_RATE,
                              kind=(int, float)))
    if rate <= 0:
        raise ConfigError("`gateway.access_log_rate` must be a number of lines per second > 0",
                          f"fix it in {settings.home}/config.yaml (default "
                          f"{access_log_module.DEFAULT_RATE:g})")
    gateway, close = build_gateway(settings, cwd, flags)
    log = access_log_module.open_log(
        access_log if access_log is not None else settings.get("gateway.access_log", "stderr",
                                                               kind=(str, bool)), rate)
    app = create_app(gateway, keys, on_close=close, log=log,
                     metrics_key=_metrics_key(settings, keys))
    if platforms:
        chats.attach(app, gateway, platforms)
    from gateway.cron.boot import attach as attach_cron

    attach_cron(app, gateway, settings)  # scheduled jobs (gateway/cron/)
    return app


def _metrics_key(settings: Settings, keys: KeyRing) -> str | None:
    """`gateway.metrics_key`: a string of 8+ characters that is no client key, or absent."""
    key = settings.get("gateway.metrics_key", kind=str)
    if key is None:
        return None
    key = key.strip()
    where = f"fix `gateway.metrics_key` in {settings.home}/config.yaml"
    if len(key) < 8:
        raise ConfigError("`gateway.metrics_key` must be at least 8 characters", where)
    if keys.owner(f"Bearer {key}") is not None:
        raise ConfigError("`gateway.metrics_key` is also a client key: a tenant could read "
                          "every key's spend", where + " (give it a key of its own)")
    return key


def _daily_limit(settings: Settings) -> float | None:
    """`gateway.daily_usd_per_key` checked at start (a number > 0, or absent)."""
    if settings.get("gateway.daily_usd_per_key") is None:
        return None
    return float(settings.number("gateway.daily_usd_per_key", 0.0, lo=0, above=True))


def gateway_limits(settings: Settings) -> Limits:
    """`gateway.header_timeout`, `gateway.body_timeout` (s), `gateway.max_connections`."""
    from gateway.guard import Limits

    cap = settings.get("gateway.max_connections", None, kind=int)
    if cap is not None:
        cap = settings.number("gateway.max_connections", 0, lo=1, whole=True)
    return Limits(
        header_timeout=float(settings.number("gateway.header_timeout", 10.0, lo=0, above=True)),
        body_timeout=float(settings.number("gateway.body_timeout", 30.0, lo=0, above=True)),
        max_connections=cap)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def run_gateway(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,  # noqa: PLR0913
                flags: Flags | None = None, *,
                access_log: str | None = None, api: bool = True,
                database_url: str | None = None, database_url_file: str | None = None,
                verbose: bool = False) -> int:
    """`hermes gateway`: serve until Ctrl-C; returns the exit code. Without `api` only
    the configured chat platforms run. `database_url` (--database-url, no password) or
    `database_url_file` (--database-url-file) wins over HERMES_DATABASE_URL and
    config.yaml's `database_url` (docs/SCALEOUT.md). `verbose`: the libraries' own log
    lines too (gateway/library_logs.py)."""
    from frontend.config.settings import load_settings
    from frontend.factory import startup_warnings
    from gateway.fleet import flagged_database_url
    from gateway.server import GatewayServer

    set_library_logs(verbose)
    flagged = flagged_database_url(database_url, database_url_file)
    settings = load_settings()
    if flagged is not None:
        settings.database_url = flagged
    for warning in startup_warnings(settings, Path.cwd()):
        sys.stderr.write(f"hermes: warning: {warning}\n")
    if not api:
        return _chats_only(settings, flags)
    app = build_app(settings, Path.cwd(), flags, access_log=access_log)
    try:
        server = GatewayServer(app, host, port, limits=gateway_limits(settings))
    except OSError as exc:  # port taken, unknown host, no permission
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                          "pick another address with --host / --port") from None
    if not _is_loopback(host):
        sys.stderr.write(f"hermes: warning: listening on {host}, reachable from other machines; "
                         "anyone with a key can run tools here\n")
    model = app.state.api.gateway.base.provider
    sys.stdout.write(f"hermes gateway listening on http://{host}:{server.port}/v1 "
                     f"(model {model.model}, {model.provider}; "
                     f"sessions in {app.state.api.gateway.store.handle.where}; Ctrl-C to stop)\n")
    sys.stdout.flush()
    server.serve()
    return 0


def _chats_only(settings: Settings, flags: Flags | None = None) -> int:
    """`hermes gateway --no-api`: the chat platforms alone."""
    import asyncio

    from gateway.chat import boot as chats

    platforms = chats.configured(settings)
    if not platforms:
        raise ConfigError("--no-api leaves nothing to run: no chat platform is configured",
                          f"configure {chats.how_to_configure()} (docs/CHAT.md), "
                          "or drop --no-api")
    gateway, close = build_gateway(settings, Path.cwd(), flags)
    try:
        asyncio.run(_with_cron(chats.serve_chats(gateway, platforms), settings, gateway))
    finally:
        close()
    return 0


async def _with_cron(serving: Coroutine[Any, Any, None], settings: Settings,
                     gateway: Gateway) -> None:
    """`serving` (the chat platforms alone) with the scheduler beside it."""
    from gateway.cron.boot import scheduler_for

    scheduler = scheduler_for(settings, gateway)
    scheduler.start()
    try:
        await serving
    finally:
        await scheduler.stop()
