"""The web tools against local HTTP servers: an article page, redirects (to a private
address: refused with no connection made), an allow-listed host, the size cap, the
session's copy, and fake SearXNG and Brave backends (wire tier)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent.errors import ToolError
from agent.permissions.rules import parse
from agent.tools.registry import ToolState
from agent.tools.web.fetch import fetch_url
from agent.tools.web.policy import WebPolicy, WebRefused, parse_allow_hosts
from agent.tools.web.settings import SearchSettings, WebSettings

pytestmark = pytest.mark.wire
LOCAL = parse_allow_hosts(["127.0.0.1"])


def test_a_listed_host_serves_the_article_as_markdown_through_the_tool(site, call, ctx):
    c = replace(ctx, web=WebSettings(LOCAL))
    result = call("web_fetch", c, url=site.url + "/article")
    assert result.ok, result.content
    head = f"Web page fetched from {site.url}/article: HTML page as Markdown, "
    assert result.content.startswith(head)
    assert "Title: Pinning dependencies with lock files" in result.content
    assert "# Pinning dependencies with lock files" in result.content
    assert "FOOTER-MARKER" not in result.content and "<p" not in result.content
    assert result.for_model.startswith('<untrusted source="web_fetch">\n' + head)


def test_a_host_not_listed_is_refused_and_never_connected(site):
    trap_port = site.trap.getsockname()[1]
    with pytest.raises(WebRefused):
        fetch_url(site.url + "/article", WebPolicy())
    with pytest.raises(WebRefused):
        fetch_url(f"http://127.0.0.2:{trap_port}/", LOCAL)  # 127.0.0.1 listed, not .2
    assert site.hits == [] and site.trap_untouched()


def test_a_redirect_to_a_private_address_is_refused_before_connecting(site, call, ctx):
    result = call("web_fetch", replace(ctx, web=WebSettings(LOCAL)), url=site.url + "/to-private")
    assert not result.ok
    assert result.content.startswith(f"Error: refused to fetch {site.trap_url}: 127.0.0.2 is a "
                                     "private or local address")
    assert site.hits == ["/to-private"] and site.trap_untouched()


def test_redirects_are_followed_each_one_checked_and_bounded(site):
    fetched = fetch_url(site.url + "/to-article", LOCAL)
    assert (fetched.status, fetched.final_url) == (200, site.url + "/article")
    with pytest.raises(ToolError) as caught:
        fetch_url(site.url + "/loop", LOCAL)
    assert "too many redirects" in caught.value.message


def test_a_deny_rule_refuses_a_redirect_to_its_domain(site, call, ctx):
    c = replace(ctx, web=WebSettings(LOCAL),
                permissions=parse({"deny": ["web_fetch(domain:127.0.0.1)"]}, "config.yaml"))
    assert "deny `web_fetch(domain:127.0.0.1)`" in call("web_fetch", c, url=site.url + "/article").content
    assert site.hits == []


def test_the_connection_goes_to_the_checked_address_with_the_name_as_host(site):
    lookups: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        lookups.append(host)
        return ["127.0.0.1"]

    port = int(site.url.rsplit(":", 1)[1])
    policy = WebPolicy(frozenset({"docs.test"}), (), resolve)
    fetched = fetch_url(f"http://docs.test:{port}/data.json", policy)
    assert (fetched.body, fetched.content_type) == (b'{"ok": true}', "application/json")
    assert lookups == ["docs.test"] and site.hosts == [f"docs.test:{port}"]


def test_an_unreachable_address_gives_way_to_the_next_allowed_one(site):
    port = int(site.url.rsplit(":", 1)[1])
    policy = WebPolicy(frozenset(), parse_allow_hosts(["127.0.0.0/8"]).networks,
                       lambda host, _port: ["10.1.1.1", "127.0.0.3", "127.0.0.1"])
    assert policy.target("http://docs.test/").addresses == ("127.0.0.3", "127.0.0.1")
    fetched = fetch_url(f"http://docs.test:{port}/data.json", policy)  # .3 refuses: .1 answers
    assert fetched.body == b'{"ok": true}' and site.hosts == [f"docs.test:{port}"]


def test_the_download_stops_at_the_cap(site, call, ctx):
    fetched = fetch_url(site.url + "/big", LOCAL, max_bytes=100_000)
    assert len(fetched.body) == 100_000 and fetched.truncated
    content = call("web_fetch", replace(ctx, web=WebSettings(LOCAL)), url=site.url + "/big").content
    assert "[note: the download stopped at the size cap" in content


def test_searxng_results_are_a_short_list(site, call, ctx):
    c = replace(ctx, web=WebSettings(search=SearchSettings("searxng", site.url)))
    result = call("web_search", c, query="lock   files", count=3)
    assert result.ok, result.content
    assert result.content == (
        "Web search results for 'lock files' (searxng, 3 results):\n"
        "\n1. Result & 0\n   https://r0.example.org/\n   About lock files 0"
        "\n\n2. Result & 1\n   https://r1.example.org/\n   About lock files 1"
        "\n\n3. Result & 2\n   https://r2.example.org/\n   About lock files 2")
    assert result.for_model.startswith('<untrusted source="web_search">')
    call("web_search", c, query="lock files", count=3)
    assert site.hits == ["/search"]  # the session's copy answered the second time


def test_brave_results_and_a_bad_key(site, call, ctx):
    good = replace(ctx, web=WebSettings(search=SearchSettings("brave", site.url, "bk-test")))
    assert "1. Lock files\n   https://b.example.org/\n   Why lock files matter" in \
        call("web_search", good, query="lock").content
    bad = replace(ctx, web=WebSettings(search=SearchSettings("brave", site.url, "wrong")),
                  state=ToolState())
    assert call("web_search", bad, query="lock").content == \
        "Error: the brave search backend answered HTTP 401"


@pytest.fixture
def tls_site(tmp_path):
    """An HTTPS server on 127.0.0.1 with a certificate for `docs.test` only; records the
    TLS server names clients sent."""
    import ssl
    import subprocess
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=docs.test", "-addext", "subjectAltName=DNS:docs.test",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True,
                   timeout=60)
    names: list[str | None] = []
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda sock, name, ctx: names.append(name)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # noqa: ANN002
            pass

        def do_GET(self):  # noqa: N802
            body = f"host={self.headers.get('Host')}".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    trust = ssl.create_default_context(cafile=str(cert))
    try:
        yield server.server_port, trust, names
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_https_goes_to_the_checked_address_with_the_name_for_sni_and_the_certificate(tls_site):
    port, trust, names = tls_site
    policy = WebPolicy(frozenset({"docs.test", "other.test"}), (),
                       lambda host, _port: ["127.0.0.1"])
    fetched = fetch_url(f"https://docs.test:{port}/x", policy, tls=trust)
    assert fetched.body == f"host=docs.test:{port}".encode() and names == ["docs.test"]
    with pytest.raises(ToolError) as caught:  # same address, a name the certificate lacks
        fetch_url(f"https://other.test:{port}/x", policy, tls=trust)
    assert caught.value.message.startswith(f"could not fetch https://other.test:{port}/x:")
    assert "certificate" in caught.value.message.lower() or "hostname" in caught.value.message.lower()


def test_a_page_read_again_says_it_is_the_stored_copy_and_refresh_fetches_it_anew(site, call, ctx):
    c = replace(ctx, web=WebSettings(LOCAL))
    url = site.url + "/counter"
    first = call("web_fetch", c, url=url).content
    again = call("web_fetch", c, url=url).content
    assert first.endswith("\n\nvisit 1") and not first.startswith("[note")
    assert again.startswith("[note: this session's copy, fetched at ") and again.endswith("visit 1")
    assert site.hits == ["/counter"]
    fresh = call("web_fetch", c, url=url, refresh=True).content
    assert fresh.endswith("visit 2") and not fresh.startswith("[note")  # a new result
    assert site.hits == ["/counter", "/counter"]
    assert "HTTP 404" in call("web_fetch", c, url=site.url + "/missing").content
