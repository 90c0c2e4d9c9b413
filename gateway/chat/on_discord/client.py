"""A discord.py Client that talks to `base_url` and dials the websocket URL Discord names.

discord.py builds every REST URL from one constant (`Route.BASE`, discord.com/api/v10)
and its plain `Client` always dials wss://gateway.discord.gg, ignoring `GET
/gateway/bot`. hermes needs both configurable (a proxy, a test fake), so:

- `RoutedHTTP` (a subclass of discord.py's HTTPClient) rebases each request's URL onto
  `base_url`, asks `GET {base_url}/gateway/bot` for the websocket URL right after
  logging in (`static_login`), and connects there instead of the default gateway
  (`ws_connect`; a resume keeps the `resume_gateway_url` READY named).
- `HermesClient` installs it in `_get_state`, the hook discord.py's own
  AutoShardedClient overrides to build the client's state.
- Every 429 the platform answers is reported to `on_429(channel id, retry_after)` from
  an aiohttp TraceConfig (Client's public `http_trace` option): the chat's ChatBudget
  holds the channel, while discord.py itself waits `retry_after` and sends the refused
  call again.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import HTTPClient, Route

from gateway.chat.on_discord.facts import FACTS

DEFAULT_BASE_URL = FACTS.base_url
CHANNEL = re.compile(r"/channels/(\d+)/")


class RoutedHTTP(HTTPClient):
    """discord.py's HTTP client, rooted at `base_url` (see the module docstring)."""

    def __init__(self, base_url: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.base_url = base_url.rstrip("/")
        self.gateway_url = ""

    async def request(self, route: Route, **kwargs: Any) -> Any:
        if route.url.startswith(Route.BASE) and self.base_url != Route.BASE:
            route.url = self.base_url + route.url[len(Route.BASE):]
        return await super().request(route, **kwargs)

    async def static_login(self, token: str) -> Any:
        me = await super().static_login(token)
        _shards, self.gateway_url, _limits = await self.get_bot_gateway()
        return me

    async def ws_connect(self, url: str, *, compress: int = 0) -> Any:
        default = DiscordWebSocket.DEFAULT_GATEWAY
        asked = yarl.URL(url)
        if self.gateway_url and asked.host == default.host:
            url = str(yarl.URL(self.gateway_url).with_query(asked.query))
        return await super().ws_connect(url, compress=compress)


class HermesClient(discord.Client):
    """A discord.Client on RoutedHTTP."""

    def __init__(self, *, base_url: str, on_429: Callable[[int, float], None],
                 intents: discord.Intents, **options: Any) -> None:
        self.base_url = base_url
        self.on_429 = on_429
        logging.getLogger("discord.client").addFilter(_no_voice_notice)
        super().__init__(intents=intents, http_trace=self._trace(),
                         allowed_mentions=discord.AllowedMentions.none(), **options)

    def _get_state(self, **options: Any) -> Any:  # the hook AutoShardedClient overrides
        old = self.http
        self.http = RoutedHTTP(self.base_url, self.loop, old.connector,
                               http_trace=old.http_trace,
                               max_ratelimit_timeout=old.max_ratelimit_timeout)
        return super()._get_state(**options)

    def _trace(self) -> aiohttp.TraceConfig:
        trace = aiohttp.TraceConfig()

        async def ended(_session: aiohttp.ClientSession, _ctx: SimpleNamespace,
                        params: aiohttp.TraceRequestEndParams) -> None:
            if params.response.status != 429:
                return
            found = CHANNEL.search(params.url.path)
            headers = params.response.headers
            wait = headers.get("X-RateLimit-Reset-After") or headers.get("Retry-After") or "1"
            self.on_429(int(found.group(1)) if found else 0, float(wait))

        trace.on_request_end.append(ended)
        return trace


def _no_voice_notice(record: logging.LogRecord) -> bool:
    """Drop discord.py's notice that voice support is missing (a text bot needs none)."""
    return "voice will NOT be supported" not in record.getMessage()


def intents() -> discord.Intents:
    """Guild and DM messages with their content (a privileged intent: switched on in
    the developer portal), guilds (channels and threads in the cache)."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    wanted.guild_messages = True
    wanted.dm_messages = True
    wanted.message_content = True
    return wanted
