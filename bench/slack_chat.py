"""Slack bench: the real gateway (build_app + uvicorn, in this process) with Slack
attached, FakeSlack (Web API + Socket Mode) in front, the fake Anthropic provider
behind; default settings (edit_interval 1.5 s, the channel budget of 0.75 writes a
second, burst 2).

    .venv/bin/python bench/slack_chat.py [--messages 10]

1. paced DM: `messages` short messages, each 2 s after the previous answer. First-text
   latency = the user's message queued on the socket -> the fake recording the bot's
   first accepted message (chat.postMessage or chat.startStream) in the DM. Reads =
   cache_read / prompt tokens of each request from the second message on.
2. streamed replies: 3 answers streamed for about 4 s each; edits per reply =
   chat.appendStream calls of the answer's message.
3. burst: 20 messages sent at once into one DM; 429s = calls the fake refused with 429
   there; every answer must arrive. Envelopes not acked within 3 s count as errors.
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
from tests.chat.slack_harness import OTHER, OWNER, Slacks  # noqa: E402
from tests.fakes import FakeProvider, Reply  # noqa: E402
from tests.fakes.slack_api import APP_TOKEN, BOT_TOKEN, FakeSlack  # noqa: E402

DM, BURST_DM = f"D{OWNER}", f"D{OTHER}"
FIRST = ("chat.postMessage", "chat.startStream")


def first_text(slack: FakeSlack, channel: str, since: float) -> float:
    return min(c.time for c in slack.recorded(channel=channel)
               if c.time >= since and c.method in FIRST and c.status == 200) - since


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeProvider(min_cache_tokens=64) as fake, \
            FakeSlack() as slack:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ.update(HERMES_HOME=str(home), SLACK_BOT_TOKEN=BOT_TOKEN,
                          SLACK_APP_TOKEN=APP_TOKEN)
        chats = Slacks(home, fake, slack)
        chats.config["gateway"]["slack"] = {"base_url": slack.base_url,
                                            "allowed_users": [OWNER, OTHER]}
        server = chats.start()
        stats = chats.hub(server).stats["slack"]
        try:
            latencies, reads = paced(fake, args.messages, lambda text: slack.dm(OWNER, text),
                                     lambda n: chats.turns(server, n),
                                     lambda since: first_text(slack, DM, since))

            edits: list[int] = []
            fake.responder = lambda rec: Reply("word " * 400, chunks=80, delay=0.05)
            for n in range(3):
                root = slack.dm(OWNER, f"tell me story {n}")
                chats.turns(server, args.messages + n + 1)
                edits += [len(m.edits) for m in slack.sent(DM, thread_ts=root)]
                time.sleep(2.0)

            done = args.messages + 3
            fake.responder = lambda rec: Reply("burst answer")
            start = time.monotonic()
            for n in range(20):
                slack.dm(OTHER, f"burst {n}")
            slack.wait_for(lambda: stats.turns >= done + 20, timeout=120, what="the burst")
            burst_s = time.monotonic() - start
            limited = sum(1 for c in slack.recorded(channel=BURST_DM) if c.status == 429)
            answers = len(slack.texts(BURST_DM))
            problems = slack.problems()
            refused = [c for c in slack.calls if c.status != 200 or not c.result.get("ok", True)]
        finally:
            chats.stop_all()
    report(args.messages, latencies, reads, limited, answers, burst_s)
    print(f"streamed replies (~4 s each, edit_interval 1.5 s): appends per reply {edits}")
    print(f"platform errors: {len(refused)} refused calls, {len(problems)} truncations / "
          "late or missing acks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
