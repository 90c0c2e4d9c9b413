"""GatewayServer: uvicorn serving the gateway's app on a bound socket, in the calling
thread (`hermes gateway`, which then handles SIGINT/SIGTERM) or in a background thread
(tests, the bench, embedding).

Shutdown: as soon as it starts, the app's `state.begin_shutdown` (if any) is called so
that running turns stop and open streams end, then uvicorn waits for the connections
(at most 5 s) and runs the app's lifespan shutdown (agents, then store closed).
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Iterator
from typing import Any

from gateway.guard import Limits, Stats, guarded_protocol

# Function-level imports below: uvicorn and asyncio's machinery load when the server
# starts serving (`hermes gateway` only; start-up speed of every other command).

def _uvicorn_server(config: Any, log_every: float = 10.0) -> Any:
    """A uvicorn.Server that stops the app's turns as soon as a shutdown starts
    (SIGINT, SIGTERM, stop()), before it waits for the open connections, and returns
    normally after a signal (uvicorn re-raises it, which under asyncio.run turns a clean
    shutdown into a KeyboardInterrupt and a logged traceback)."""
    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            signals = (signal.SIGINT, signal.SIGTERM)
            original = {sig: signal.signal(sig, self.handle_exit) for sig in signals}
            try:
                yield
            finally:
                for sig, handler in original.items():
                    signal.signal(sig, handler)

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            import asyncio

            from gateway.guard import install_quiet_errors

            install_quiet_errors(asyncio.get_running_loop(), log_every)
            await super().startup(sockets)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            state = getattr(self.config.app, "state", None)
            begin = getattr(state, "begin_shutdown", None)
            if begin is not None:
                begin()
            await super().shutdown(sockets)

    return Server(config)


class GatewayServer:
    """uvicorn serving `app` in a background thread (tests, the bench, embedding)."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, *,
                 limits: Limits | None = None) -> None:
        """Bind now; `limits`: header/body timeouts, connection cap (gateway/guard.py)."""
        import uvicorn

        self.host = host
        self._socket = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        try:
            self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._socket.bind((host, port))
            self._socket.listen(2048)  # "listening on" is true once printed: early
            # connections wait in the backlog until uvicorn accepts them
        except OSError:
            self._socket.close()
            raise
        self.port = self._socket.getsockname()[1]
        # no access log: nothing of a request (its headers hold the key) is ever printed
        self.limits, self.stats = limits or Limits(), Stats()
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                                timeout_graceful_shutdown=5, backlog=4096,
                                http=guarded_protocol(self.limits, self.stats))
        self.server = _uvicorn_server(config, self.limits.log_every)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self, timeout: float = 10.0) -> GatewayServer:
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self._socket]},
                                        name="hermes-gateway", daemon=True)
        self._thread.start()
        waited = 0.0
        while not self.server.started:
            if not self._thread.is_alive() or waited > timeout:
                raise RuntimeError("the gateway did not start")
            threading.Event().wait(0.01)
            waited += 0.01
        return self

    def serve(self) -> None:
        """Serve in the calling thread until Ctrl-C / SIGTERM."""
        self.server.run(sockets=[self._socket])

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=15)
            self._thread = None
        self._socket.close()

    def __enter__(self) -> GatewayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
