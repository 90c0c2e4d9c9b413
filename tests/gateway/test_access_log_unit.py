"""The access log's flood bound and line fields (fast tier: a fake clock, no sockets)."""

from __future__ import annotations

import json

import pytest

from agent.errors import ConfigError
from agent.usage import Usage
from gateway.access_log import AccessLog, fields_of, open_log
from gateway.sessions import TurnResult


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _log(rate=2.0, burst=4.0):
    lines: list[dict] = []
    clock = Clock()
    log = AccessLog(lambda s: lines.append(json.loads(s)), rate=rate, burst=burst, clock=clock)
    return log, lines, clock


def test_a_flood_is_cut_to_the_rate_and_summarised():
    log, lines, clock = _log()
    written = sum(log.emit({"ts": "t", "status": 401}) for _ in range(1000))
    assert written == 4 and len(lines) == 4  # the burst, then nothing in the same instant
    clock.now += 1.0  # one second later: 2 new tokens; the 996 dropped are summarised first
    log.emit({"ts": "t2", "status": 200})
    assert lines[4] == {"ts": lines[4]["ts"], "event": "suppressed", "lines": 996,
                        "since": "t", "statuses": {"401": 996}}
    assert lines[5]["status"] == 200


def test_a_sustained_flood_writes_one_summary_per_second_at_most():
    log, lines, clock = _log(rate=1.0, burst=1.0)
    for _ in range(10):  # 10 s of 100 requests per second
        for _ in range(100):
            clock.now += 0.01
            log.emit({"ts": "t", "status": 200})
    summaries = [line for line in lines if line.get("event") == "suppressed"]
    assert len(lines) <= 10 * 1 + 1 + 10  # rate x time + burst + one summary a second
    assert len(summaries) >= 9
    log.close()  # the last dropped lines are not lost from the count
    total = sum(1 for line in lines if "event" not in line)
    assert total + sum(s["lines"] for s in lines if s.get("event")) == 1000


def test_fields_of_a_turn_are_figures_only_and_unknown_stays_unknown():
    usage = Usage(uncached=10, write_5m=20, cache_read=70, output=5)
    result = TurnResult("sid", "claude-sonnet-5-5", "secret answer text", usage, "answer",
                        cost=0.00123456789)
    fields = fields_of({"session": "s1", "result": result})
    assert fields == {"session": "s1", "stored_session": "sid", "model": "claude-sonnet-5-5",
                      "prompt_tokens": 100, "cached_tokens": 70, "output_tokens": 5,
                      "cache_read_share": 0.7, "cost_usd": 0.00123457}
    unknown = TurnResult("sid", "m", "", Usage(uncached=10, cache_known=False), "answer")
    assert fields_of({"result": unknown})["cache_read_share"] is None
    assert fields_of({"result": unknown})["cost_usd"] is None
    assert fields_of({"session": "s"}) == {"session": "s"}


def test_targets(tmp_path):
    assert open_log("off") is None and open_log(False) is None
    assert open_log("stderr") is not None and open_log(None) is not None
    log = open_log(str(tmp_path / "access.log"))
    log.emit({"ts": "t", "status": 200})
    log.close()
    assert json.loads((tmp_path / "access.log").read_text())["status"] == 200
    with pytest.raises(ConfigError, match="cannot open the access log"):
        open_log(str(tmp_path / "no" / "such" / "dir" / "x.log"))
