"""Chat platform bench: N chats x T messages through Telegram (the fake Bot API) into
`hermes gateway`, against the fake Anthropic provider; the same turns over the HTTP API.

    .venv/bin/python bench/chat_platforms.py [--chats 50] [--messages 10]

Processes: the fake provider and the gateway (`python -m hermes_cli gateway`, the real
CLI path, Telegram configured with the fake's base URL, edit_interval 1 s) each run in
their own process; this process runs the fake Bot API (a thread) and the drivers.

0. idle: one chat, then one HTTP session, 20 messages one after the other (the
   platform's own cost per message, no contention).
1. telegram: every chat (one thread each) sends a message, waits for its final answer
   (the HTML text that ends the turn), sends the next. Latency = from the update being
   queued on the fake to the final text recorded by it (so it includes the long-poll
   pickup, the typing action and the streamed edit). Per-chat hit rate from the store's
   usage rows (sum cache_read / sum prompt tokens of the chat's session).
2. http: the same N x T turns (same texts, new session names) with the real `openai`
   client, non-streamed. Added latency = telegram percentile - http percentile.
Memory per cached chat agent = the gateway's RSS delta over phase 1 / N (one agent per
chat; nothing else is cached then), after a warm-up chat (SDK imports, connection pools)
and the idle phase, that no other figure counts.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import openai  # noqa: E402
import yaml  # noqa: E402

from bench.gateway_load import percentile, rss_mb, spawn  # noqa: E402
from tests.fakes.telegram_api import TOKEN, FakeTelegram  # noqa: E402
from tests.helpers import HERMES, child_env  # noqa: E402

KEY = "bench-chat-key-0001"
MODEL = "claude-sonnet-5-5"
FIRST_CHAT = 10_000


def finals(tg: FakeTelegram, chat: int) -> int:
    return sum(1 for m in tg.sent(chat) if m.get("parse_mode") == "HTML")


def text_of(chat: int, turn: int) -> str:
    return f"message {turn} of chat {chat}: say ok"


def telegram_phase(tg: FakeTelegram, chats: int, messages: int) -> tuple[list[float], list[float]]:
    """(latencies to the final text, latencies to the bot's first call in the chat: the
    long-poll pickup up to the typing action)."""
    latencies: list[float] = []
    pickups: list[float] = []
    lock = threading.Lock()

    def one_chat(chat: int) -> None:
        for turn in range(messages):
            start = time.monotonic()
            tg.message(chat, chat, text_of(chat, turn))
            tg.wait_for(lambda n=turn: finals(tg, chat) > n, timeout=120, what=f"chat {chat}")
            end = time.monotonic()
            first = min(c.time for c in tg.recorded(chat_id=chat) if c.time >= start)
            with lock:
                latencies.append(end - start)
                pickups.append(first - start)

    in_threads(one_chat, chats)
    return latencies, pickups


def in_threads(fn, chats: int) -> None:
    """fn(chat) for every chat, one thread each, all at once."""
    threads = [threading.Thread(target=fn, args=(FIRST_CHAT + i,)) for i in range(chats)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def http_phase(base_url: str, chats: int, messages: int) -> list[float]:
    client = openai.OpenAI(base_url=base_url, api_key=KEY, max_retries=0, timeout=120)
    latencies: list[float] = []
    lock = threading.Lock()

    def one_session(chat: int) -> None:
        for turn in range(messages):
            start = time.perf_counter()
            client.chat.completions.create(
                model="hermes", messages=[{"role": "user", "content": text_of(chat, turn)}],
                extra_headers={"X-Hermes-Session-Id": f"http-{chat}"})
            with lock:
                latencies.append(time.perf_counter() - start)

    in_threads(one_session, chats)
    return latencies


def idle_phase(tg: FakeTelegram, base_url: str, turns: int = 20) -> tuple[list[float], list[float]]:
    """One chat, then one HTTP session, `turns` messages one after the other: the
    platform's own cost per message without contention."""
    chat = FIRST_CHAT - 2
    via_chat: list[float] = []
    for turn in range(turns):
        start = time.monotonic()
        tg.message(chat, chat, text_of(chat, turn))
        tg.wait_for(lambda n=turn: finals(tg, chat) > n, timeout=60, what="the idle chat")
        via_chat.append(time.monotonic() - start)
    client = openai.OpenAI(base_url=base_url, api_key=KEY, max_retries=0, timeout=60)
    via_http: list[float] = []
    for turn in range(turns):
        start = time.monotonic()
        client.chat.completions.create(
            model="hermes", messages=[{"role": "user", "content": text_of(chat, turn)}],
            extra_headers={"X-Hermes-Session-Id": "http-idle"})
        via_http.append(time.monotonic() - start)
    return via_chat, via_http


def chat_hit_rates(home: Path) -> list[float]:
    """Per chat session: sum(cache_read) / sum(prompt tokens), from the usage rows (the
    warm-up and idle chats left out)."""
    with sqlite3.connect(home / "state.db") as db:
        rows = db.execute(
            "SELECT session_id, SUM(COALESCE(cache_read, 0)),"
            " SUM(uncached + write_5m + write_1h + COALESCE(cache_read, 0))"
            " FROM usage GROUP BY session_id").fetchall()
    with sqlite3.connect(home / "gateway.db") as db:
        telegram = {sid for (sid,) in db.execute(
            "SELECT session_id FROM routes WHERE name LIKE 'telegram/%'")}
        warm = {sid for (sid,) in db.execute(
            "SELECT session_id FROM routes WHERE name IN (?, ?)",
            (f"telegram/{FIRST_CHAT - 1}", f"telegram/{FIRST_CHAT - 2}"))}
    return [read / total for sid, read, total in rows if sid in telegram and total
            and sid not in warm]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chats", type=int, default=50)
    parser.add_argument("--messages", type=int, default=10)
    parser.add_argument("--flood-limit", type=int, default=None,
                        help="the fake refuses (429) more than N sends/edits per chat in 1 s")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name, FakeTelegram(flood_limit=args.flood_limit) as tg:
        tmp = Path(tmp_name)
        env = child_env(tmp, PYTHONPATH=str(ROOT))
        fake, line = spawn([sys.executable, "-m", "tests.fakes.server", "--port", "0"],
                           env, ROOT, "fake provider", tmp / "fake.log")
        home = tmp / "home"
        home.mkdir()
        (home / "config.yaml").write_text(yaml.safe_dump({
            "provider": "anthropic", "model": MODEL, "api_key": "bench-provider-key",
            "base_url": line.split()[3],
            "gateway": {"api_key": KEY, "max_agents": 256, "workers": 64, "telegram": {
                "base_url": tg.base_url, "edit_interval": 1.0,
                "allowed_users": [FIRST_CHAT + i for i in range(-2, args.chats)]}}}))
        work = tmp / "work"
        work.mkdir()
        gateway, line = spawn([*HERMES, "gateway", "--port", "0"],
                              child_env(home, PYTHONPATH=str(ROOT), TELEGRAM_BOT_TOKEN=TOKEN),
                              work, "listening on", tmp / "gateway.log")
        try:
            tg.wait_for(lambda: tg.recorded("setMyCommands"), timeout=30, what="the bot")
            warm = FIRST_CHAT - 1  # SDK imports and pools: not counted as agents' memory
            tg.message(warm, warm, "warm up")
            tg.wait_for(lambda: finals(tg, warm), timeout=60, what="the warm-up answer")
            idle_chat, idle_http = idle_phase(tg, line.split()[4])
            rss_before = rss_mb(gateway.pid)
            start = time.perf_counter()
            via_telegram, pickups = telegram_phase(tg, args.chats, args.messages)
            elapsed = time.perf_counter() - start
            rss_after = rss_mb(gateway.pid)
            via_http = http_phase(line.split()[4], args.chats, args.messages)
            rates = chat_hit_rates(home)
        finally:
            for proc in (gateway, fake):
                proc.terminate()
                proc.wait(timeout=20)
    total = args.chats * args.messages
    print(f"{args.chats} chats x {args.messages} messages through the fake Bot API")
    print(f"flood errors (429s the fake answered, limit {args.flood_limit} per chat and s): "
          f"{sum(1 for c in tg.calls if c.status == 429)}")
    print(f"per-chat hit rate: min {min(rates):.1%}, median {statistics.median(rates):.1%} "
          f"({len(rates)} chats)")
    print(f"throughput: {total / elapsed:.1f} messages/s ({total} in {elapsed:.1f} s)")
    for p in (50, 99):
        t, h = percentile(via_telegram, p), percentile(via_http, p)
        print(f"latency p{p}: telegram {t * 1000:.0f} ms, http {h * 1000:.0f} ms, "
              f"added {(t - h) * 1000:+.0f} ms")
    print(f"idle (one chat, 20 messages in a row): telegram p50 "
          f"{statistics.median(idle_chat) * 1000:.0f} ms, http p50 "
          f"{statistics.median(idle_http) * 1000:.0f} ms, added "
          f"{(statistics.median(idle_chat) - statistics.median(idle_http)) * 1000:+.0f} ms")
    print(f"pickup (update queued -> typing action) p50 {percentile(pickups, 50) * 1000:.0f} ms, "
          f"p99 {percentile(pickups, 99) * 1000:.0f} ms")
    print(f"gateway RSS {rss_before:.1f} -> {rss_after:.1f} MB: "
          f"{(rss_after - rss_before) * 1024 / args.chats:.0f} KB per cached chat agent")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
