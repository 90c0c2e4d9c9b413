"""The chat and HTTP libraries' own log lines at `hermes gateway`: quiet unless asked.

slack_bolt, slack_sdk, discord.py, python-telegram-bot, httpx/httpcore, aiohttp and
websockets log at INFO/WARNING about things hermes already handles or says in its own
words (slack_bolt's "As you gave `client` as well, `token` will be unused." at every
boot, discord.py's gateway chatter, each HTTP request at INFO). With no handler Python
prints WARNING and above to stderr, between hermes' own lines. By default each of these
loggers shows ERROR and above only; `hermes gateway --verbose` (or HERMES_DEBUG=1)
shows them from INFO, named (httpx and httpcore from WARNING: their INFO lines are
request URLs, and Telegram's carry the bot token). uvicorn's lines are the listener's
(gateway/listener.py, gateway/guard.py), and hermes' own lines are written by hermes.
"""

from __future__ import annotations

import logging
import os

from gateway.chat.platforms import PLATFORMS

# each chat platform's SDK loggers (its facts), and the HTTP and websocket libraries'
LIBRARIES = (*(name for p in PLATFORMS for name in p.loggers), "httpx", "httpcore",
             "aiohttp", "websockets")
SECRET_URLS = ("httpx", "httpcore")  # INFO lines carry request URLs (a bot token in a path)


def set_library_logs(verbose: bool = False) -> None:
    """Quiet the libraries' loggers (ERROR and above), or show them all (`verbose`)."""
    if verbose or os.environ.get("HERMES_DEBUG"):
        logging.basicConfig(level=logging.INFO,
                            format="%(name)s: %(levelname)s: %(message)s")
        for name in LIBRARIES:  # httpx logs each URL: Telegram's holds the bot token
            logging.getLogger(name).setLevel(logging.WARNING if name in SECRET_URLS
                                             else logging.INFO)
        return
    for name in LIBRARIES:
        logging.getLogger(name).setLevel(logging.ERROR)
