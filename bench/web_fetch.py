"""Cost of the web policy on a fetch: `python bench/web_fetch.py [N]`.

A small page on a loopback server, N sequential GETs each way (median, microseconds):
1. a plain GET: a new `httpx.Client` per request (as one tool call would make), no checks,
   with the TLS context fetch_url shares (a default Client builds one: ~100 ms);
2. `fetch_url` with 127.0.0.1 allow-listed: URL checks, the address judged, the request
   sent to that address with the Host header, redirects by hand, the capped read;
3. the policy's decision alone (`WebPolicy.target`) for a literal address and for a
   name resolved through the system resolver (`localhost`);
4. `readable()` of the hand-made article page (tests/web/article.html) - trafilatura.
"""

from __future__ import annotations

import statistics
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from agent.tools.web.extract import readable  # noqa: E402
from agent.tools.web.fetch import Fetched, _tls, fetch_url  # noqa: E402
from agent.tools.web.policy import WebPolicy, parse_allow_hosts  # noqa: E402
from bench._timing import median_us  # noqa: E402

PAGE = b"<html><body><article><p>" + b"hello web " * 200 + b"</p></article></body></html>"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/page"
    policy = parse_allow_hosts(["127.0.0.1", "localhost"])

    def plain() -> None:
        with httpx.Client(trust_env=False, verify=_tls()) as client:
            client.get(url).read()

    def default_client() -> None:
        with httpx.Client() as client:
            client.get(url).read()

    for fn in (plain, lambda: fetch_url(url, policy)):  # warm up both paths
        fn()
    base_t, checked_t = [], []
    for _ in range(n):  # alternated, so a busy moment of the machine hits both alike
        base_t.append(median_us(plain, 1))
        checked_t.append(median_us(lambda: fetch_url(url, policy), 1))
    base, checked = statistics.median(base_t), statistics.median(checked_t)
    print(f"httpx GET, default Client {median_us(default_client, max(5, n // 10)):7.0f} us")
    print(f"plain httpx GET          {base:8.0f} us")
    print(f"fetch_url (policy)       {checked:8.0f} us  (+{checked - base:.0f} us, "
          f"{100 * (checked - base) / base:+.0f}%)")
    literal = median_us(lambda: policy.target(url), n)
    named = median_us(lambda: WebPolicy(policy.names).target("http://localhost/"), n)
    print(f"policy.target literal    {literal:8.1f} us")
    print(f"policy.target localhost  {named:8.1f} us  (getaddrinfo)")
    article = (Path(__file__).parent.parent / "tests" / "web" / "article.html").read_bytes()
    page = Fetched(article, "text/html", "https://blog.example.org/lock")
    readable(page)
    print(f"extract article page     {median_us(lambda: readable(page), min(n, 100)):8.0f} us")
    server.shutdown()


if __name__ == "__main__":
    main()
