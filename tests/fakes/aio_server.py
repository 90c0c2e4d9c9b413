"""A fake platform's aiohttp app served on 127.0.0.1 from a thread of its own: the
lifecycle FakeSlack, FakeMatrix and FakeWhatsApp share (start, a port of the kernel's
choice, stop, a context manager). A subclass builds its app in `_app` - on the server's
loop, so loop-bound state (queues, conditions) is made there - and may answer what is
pending before the loop stops in `_stopping`."""

from __future__ import annotations

import asyncio
import threading
from typing import Self

from aiohttp import web


class ThreadedAioServer:
    name = "fake"  # the thread's name, and the start error's subject

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    def _app(self) -> web.Application:
        raise NotImplementedError

    def _stopping(self) -> None:
        """Called from the test's thread before the loop stops (nothing by default)."""

    def start(self) -> Self:
        ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(ready,), daemon=True,
                                        name=self.name)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError(f"{self.name} did not start")
        return self

    def _serve(self, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        runner = web.AppRunner(self._app())
        loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    def stop(self) -> None:
        self._stopping()
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
