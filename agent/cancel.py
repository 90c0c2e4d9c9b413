"""A cancellation token a front end trips (Ctrl-C) to stop a turn at once."""

from __future__ import annotations

import threading
from collections.abc import Callable

from agent.errors import TurnCancelled


class CancelToken:
    """Thread-safe flag plus callbacks that abort in-flight I/O (e.g. close a stream)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []
        # characters of the current reply the user saw when cancelling; None when the
        # front end does not know (then everything that arrived counts as shown)
        self.shown: int | None = None

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self, shown: int | None = None) -> None:
        """Trip the token and run every registered abort callback once; `shown` is how
        many characters of the reply being streamed the user saw."""
        with self._lock:
            if not self._event.is_set() and shown is not None:
                self.shown = shown
            if self._event.is_set():
                return
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            try:
                callback()
            except Exception:  # noqa: BLE001 - aborting I/O may race with its own close
                continue

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Register `callback`; returns a function that unregisters it."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                registered = True
            else:
                registered = False
        if not registered:
            callback()

        def remove() -> None:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)

        return remove

    def check(self) -> None:
        """Raise TurnCancelled if the token was tripped."""
        if self._event.is_set():
            raise TurnCancelled()

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`; True if cancelled meanwhile."""
        return self._event.wait(seconds)
