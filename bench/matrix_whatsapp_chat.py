"""Matrix and WhatsApp bench: the real gateway (build_app + uvicorn, in this process) with
the platform attached, its fake in front (FakeMatrix with Synapse's default rc_message:
0.2 events/s after a burst of 10; FakeWhatsApp with the Cloud API's limits), the fake
Anthropic provider behind; the adapters' default settings.

    .venv/bin/python bench/matrix_whatsapp_chat.py [--messages 10]

1. paced DM: `messages` short messages, each 2 s after the previous answer. First-text
   latency = the user's message handed to the fake -> the fake recording the bot's first
   accepted message in the DM (Matrix: an m.room.message; WhatsApp: a text). Reads =
   cache_read / prompt tokens of each request from the second message on.
2. Matrix, streamed replies: 3 answers streamed for about 8 s each; edits per reply
   (m.replace events of the answer's first message).
3. burst: 10 messages at once into one DM; rate-limit refusals the fake returned
   (M_LIMIT_EXCEEDED / 130429, 131056); every answer must arrive.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from bench._chat_figures import paced  # noqa: E402
from frontend.config.settings import load_settings  # noqa: E402
from gateway.boot import build_app  # noqa: E402
from gateway.server import GatewayServer  # noqa: E402
from tests.chat.matrix_harness import OWNER as MX_OWNER  # noqa: E402
from tests.chat.matrix_harness import Matrices  # noqa: E402
from tests.chat.whatsapp_harness import OWNER as WA_OWNER  # noqa: E402
from tests.chat.whatsapp_harness import WhatsApps  # noqa: E402
from tests.fakes import FakeProvider, Reply  # noqa: E402
from tests.fakes.matrix_api import TOKEN as MX_TOKEN  # noqa: E402
from tests.fakes.matrix_api import FakeMatrix  # noqa: E402
from tests.fakes.whatsapp_api import APP_SECRET, VERIFY_TOKEN, FakeWhatsApp  # noqa: E402
from tests.fakes.whatsapp_api import TOKEN as WA_TOKEN  # noqa: E402

BURST = 10


def _line(name: str, latencies: list[float], reads: list[float], extra: str) -> str:
    return (f"{name}: first text p50 {statistics.median(latencies) * 1000:.0f} ms, max "
            f"{max(latencies) * 1000:.0f} ms; reads from the 2nd message min {min(reads):.3f}, "
            f"median {statistics.median(reads):.3f}; {extra}")


def matrix(home: Path, messages: int) -> str:
    os.environ["MATRIX_ACCESS_TOKEN"] = MX_TOKEN
    with FakeProvider(min_cache_tokens=64) as fake, FakeMatrix() as hs:
        chats = Matrices(home, fake, hs)
        del chats.config["gateway"]["matrix"]["edit_interval"]  # the default
        # not Matrices.start: it sizes the budget to the tests' faster homeserver
        (home / "config.yaml").write_text(yaml.safe_dump(chats.config), encoding="utf-8")
        server = GatewayServer(build_app(load_settings(home), home)).start()
        chats.servers.append(server)
        try:
            hs.wait_for(lambda: chats.adapter(server).connected, what="the first sync")
            room = hs.dm(MX_OWNER)
            chats.joined(room)

            def first(since: float) -> float:
                return min(s.time for s in hs.messages(room) if s.time >= since) - since

            latencies, reads = paced(fake, messages, lambda t: hs.say(room, MX_OWNER, t),
                                     lambda n: chats.turns(server, n), first)
            edits: list[int] = []
            fake.responder = lambda rec: Reply("word " * 800, chunks=160, delay=0.05)
            for n in range(3):
                before = len(hs.messages(room))
                hs.say(room, MX_OWNER, f"tell me story {n}")
                chats.turns(server, messages + n + 1)
                answer = hs.messages(room)[before]
                edits.append(sum(1 for e in hs.edits(room)
                                 if e.content["m.relates_to"]["event_id"] == answer.event_id))
                time.sleep(2.0)
            fake.responder = lambda rec: Reply("burst answer")
            start = time.monotonic()
            for n in range(BURST):
                hs.say(room, MX_OWNER, f"burst {n}")
            chats.turns(server, messages + 3 + BURST, what="the burst")
            burst_s = time.monotonic() - start
            limited = sum(1 for r in hs.refused if r[1] == "M_LIMIT_EXCEEDED")
        finally:
            chats.stop_all()
    return _line(f"Matrix, {messages} paced DMs", latencies, reads,
                 f"edits per ~8 s streamed reply {edits}; burst of {BURST}: "
                 f"{limited} M_LIMIT_EXCEEDED, all answered in {burst_s:.1f} s")


def whatsapp(home: Path, messages: int) -> str:
    os.environ.update(WHATSAPP_ACCESS_TOKEN=WA_TOKEN, WHATSAPP_APP_SECRET=APP_SECRET,
                      WHATSAPP_VERIFY_TOKEN=VERIFY_TOKEN)
    with FakeProvider(min_cache_tokens=64) as fake, FakeWhatsApp() as wa:
        chats = WhatsApps(home, fake, wa)
        server = chats.start()
        try:
            def first(since: float) -> float:
                return min(p.time for p in wa.sent(WA_OWNER) if p.time >= since) - since

            latencies, reads = paced(fake, messages, lambda t: wa.message(WA_OWNER, t),
                                     lambda n: chats.turns(server, n), first)
            fake.responder = lambda rec: Reply("burst answer")
            start = time.monotonic()
            for n in range(BURST):
                wa.message(WA_OWNER, f"burst {n}")
            chats.turns(server, messages + BURST, what="the burst")
            burst_s = time.monotonic() - start
            limited: Any = sum(1 for p in wa.posted if p.code in (130429, 131056))
        finally:
            chats.stop_all()
    return _line(f"WhatsApp, {messages} paced DMs", latencies, reads,
                 f"burst of {BURST}: {limited} rate-limit refusals, all answered in {burst_s:.1f} s")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=10)
    args = parser.parse_args()
    lines = []
    for run in (matrix, whatsapp):
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            home.mkdir()
            os.environ["HERMES_HOME"] = str(home)
            lines.append(run(home, args.messages))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
