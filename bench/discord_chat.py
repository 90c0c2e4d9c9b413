"""Discord bench: the real gateway (build_app + uvicorn, in this process) with Discord
attached, FakeDiscord (REST + gateway websocket) in front, the fake Anthropic provider
behind; default settings (edit_interval 1 s, the channel budget of 5 writes per 5 s).

    .venv/bin/python bench/discord_chat.py [--messages 10]

1. paced DM: one user sends `messages` short messages, each 2 s after the previous
   answer (a person's pace). First-text latency = the user's message dispatched -> the
   fake recording the bot's first message in the channel. Reads = cache_read / prompt
   tokens of each request from the second message on (the fake provider's records).
2. streamed replies: 3 answers streamed for about 4 s each; edits per reply = PATCHes of
   the answer's message, the final one included.
3. burst: 20 messages sent at once into one DM; 429s = answers the fake refused with
   429 in that channel; every answer must arrive.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._chat_figures import paced, report  # noqa: E402
from tests.chat.discord_harness import OWNER, DiscordChats  # noqa: E402
from tests.fakes import FakeProvider, Reply  # noqa: E402
from tests.fakes.discord_api import TOKEN, FakeDiscord  # noqa: E402

DM = OWNER + 1
BURST_USER = OWNER + 10  # another DM for the burst (allowed too)


def first_text(dc: FakeDiscord, channel: int, since: float) -> float:
    sent = [c.time for c in dc.recorded("POST", channel)
            if c.time >= since and c.path.endswith("/messages") and c.status == 200]
    return min(sent) - since


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeProvider(min_cache_tokens=64) as fake, \
            FakeDiscord() as dc:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ.update(HERMES_HOME=str(home), DISCORD_BOT_TOKEN=TOKEN)
        chats = DiscordChats(home, fake, dc)
        chats.config["gateway"]["discord"] = {"base_url": dc.base_url,
                                              "allowed_users": [OWNER, BURST_USER]}
        server = chats.start()
        try:
            latencies, reads = paced(fake, args.messages, lambda text: dc.dm(OWNER, text),
                                     lambda n: chats.turns(server, n),
                                     lambda since: first_text(dc, DM, since))

            edits: list[int] = []
            fake.responder = lambda rec: Reply("word " * 200, chunks=80, delay=0.05)
            for n in range(3):
                before = {m["id"] for m in dc.sent(DM)}
                dc.dm(OWNER, f"tell me story {n}")
                chats.turns(server, args.messages + n + 1)
                (new,) = [m["id"] for m in dc.sent(DM) if m["id"] not in before]
                edits.append(len([c for c in dc.recorded("PATCH", DM) if c.path.endswith(new)]))
                time.sleep(2.0)

            done = args.messages + 3
            fake.responder = lambda rec: Reply("burst answer")
            start = time.monotonic()
            for n in range(20):
                dc.dm(BURST_USER, f"burst {n}")
            stats = chats.hub(server).stats["discord"]
            dc.wait_for(lambda: stats.turns >= done + 20, timeout=120, what="the burst")
            burst_s = time.monotonic() - start
            burst_calls = dc.recorded(channel=BURST_USER + 1)
            limited = sum(1 for c in burst_calls if c.status == 429)
            errors = [c for c in dc.calls if c.status >= 400]
            answers = len(dc.texts(BURST_USER + 1))
        finally:
            chats.stop_all()
    report(args.messages, latencies, reads, limited, answers, burst_s)
    print(f"streamed replies (~4 s each, edit_interval 1 s): edits per reply {edits}")
    print(f"platform errors (4xx/5xx) over the whole run: {len(errors)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
