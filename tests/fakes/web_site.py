"""A local web site for the web tools' tests: an article page (tests/web/article.html),
redirects (one to a trap listener on 127.0.0.2 that must never be connected to), a big
body, JSON, a page that changes on each visit, and fake SearXNG and Brave search backends. `serve()` runs one."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

ARTICLE = (Path(__file__).resolve().parent.parent / "web" / "article.html").read_bytes()


@dataclass
class Site:
    url: str
    trap: socket.socket  # listens on 127.0.0.2: must never see a connection
    hits: list[str] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)

    @property
    def trap_url(self) -> str:
        return f"http://127.0.0.2:{self.trap.getsockname()[1]}/"

    def trap_untouched(self) -> bool:
        try:
            conn, _ = self.trap.accept()
        except BlockingIOError:
            return True
        conn.close()
        return False


PLAIN = {  # path -> (body, content type) of the site's simple pages
    "/big": lambda site: (b"x" * (6 * 1024 * 1024), "text/plain"),
    "/counter": lambda site: (f"visit {site.hits.count('/counter')}".encode(), "text/plain"),
    "/data.json": lambda site: (b'{"ok": true}', "application/json"),
}


def _handler(site: Site):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # noqa: ANN002
            pass

        def _send(self, status: int, body: bytes, kind: str = "text/html; charset=utf-8", **headers):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for key, value in headers.items():
                self.send_header(key.replace("_", "-"), value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):  # noqa: N802
            path, query = urlsplit(self.path).path, parse_qs(urlsplit(self.path).query)
            site.hits.append(path)
            site.hosts.append(self.headers.get("Host", ""))
            if path == "/article":
                self._send(200, ARTICLE)
            elif path == "/to-private":
                self._send(302, b"", Location=site.trap_url)
            elif path == "/to-article":
                self._send(301, b"", Location="/article")
            elif path == "/loop":
                self._send(302, b"", Location="/loop")
            elif path in PLAIN:
                body, kind = PLAIN[path](site)
                self._send(200, body, kind)
            elif path == "/search":  # SearXNG
                rows = [{"title": f"Result &amp; {n}", "url": f"https://r{n}.example.org/",
                         "content": f"About {query['q'][0]} {n}"} for n in range(12)]
                self._send(200 if query.get("format") == ["json"] else 403,
                           json.dumps({"results": rows}).encode(), "application/json")
            elif path == "/res/v1/web/search":  # Brave
                if self.headers.get("X-Subscription-Token") != "bk-test":
                    self._send(401, b'{"error": "bad key"}', "application/json")
                    return
                rows = [{"title": "<strong>Lock</strong> files", "url": "https://b.example.org/",
                         "description": "Why <strong>lock</strong> files matter"}]
                self._send(200, json.dumps({"web": {"results": rows}}).encode(), "application/json")
            else:
                self._send(404, b"no such page")
    return Handler


@contextmanager
def serve() -> Iterator[Site]:
    trap = socket.socket()
    trap.bind(("127.0.0.2", 0))
    trap.listen(8)
    trap.setblocking(False)
    holder = Site("", trap)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(holder))
    holder.url = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield holder
    finally:
        server.shutdown()
        server.server_close()
        trap.close()
        thread.join(timeout=10)
