"""One wait for the fake platforms (FakeTelegram, FakeSlack): poll a condition, woken
early by every call the fake records, until a deadline."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


def wait_on(lock: threading.Condition, condition: Callable[[], Any], timeout: float,
            what: str = "") -> Any:
    """Poll `condition` until truthy (its value) or the deadline passes (AssertionError)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        with lock:
            lock.wait(0.05)  # woken early by every call
