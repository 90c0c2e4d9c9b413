"""The web policy: which addresses a fetch may reach, decided before any connection
(fast tier: a fake resolver, no sockets)."""

from __future__ import annotations

import ipaddress

import pytest

from agent.errors import ToolError
from agent.tools.web.policy import WebPolicy, WebRefused, is_public, parse_allow_hosts


def resolver(table: dict[str, list[str]], calls: list[str] | None = None):
    def resolve(host: str, port: int) -> list[str]:
        if calls is not None:
            calls.append(host)
        return table[host]
    return resolve


@pytest.mark.parametrize("address", [
    "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
    "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "240.0.0.1", "192.0.2.1",
    "::1", "::", "fc00::1", "fd12:3456::1", "fe80::1", "ff02::1", "::ffff:127.0.0.1",
    "::ffff:169.254.169.254", "::ffff:10.0.0.1", "2002:7f00:1::1", "2002:a9fe:a9fe::1",
    "64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1",
])
def test_local_private_and_special_addresses_are_not_public(address):
    assert not is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111",
                                     "::ffff:93.184.216.34", "64:ff9b::808:808"])
def test_public_addresses_are_public(address):
    assert is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/", "http://localhost:8080/admin", "http://169.254.169.254/latest/meta-data/",
    "http://[::1]/", "http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://0.0.0.0:22/",
    "http://127.1/", "http://2130706433/", "http://0x7f.1/", "https://10.0.0.1/",
    "http://metadata.internal/",
])
def test_refused_urls_name_the_reason_and_the_setting(url):
    policy = WebPolicy(resolve=resolver({"localhost": ["127.0.0.1", "::1"],
                                          "metadata.internal": ["169.254.169.254"]}))
    with pytest.raises(WebRefused) as caught:
        policy.target(url)
    assert "private or local address" in caught.value.message
    assert "web: {allow_hosts" in caught.value.message


def test_a_public_name_connects_to_the_address_that_was_checked():
    calls: list[str] = []
    policy = WebPolicy(resolve=resolver({"docs.example.org": ["10.0.0.5", "93.184.216.34"]}, calls))
    target = policy.target("https://Docs.Example.org/guide?q=1#part")
    assert (target.address, target.host, target.port) == ("93.184.216.34", "docs.example.org", 443)
    assert target.connect_url == "https://93.184.216.34:443/guide?q=1"
    assert target.host_header == "docs.example.org"
    assert calls == ["docs.example.org"]  # one lookup: the connection never resolves again


def test_ipv6_targets_are_bracketed_and_ports_kept():
    policy = WebPolicy(resolve=resolver({"v6.example.org": ["2606:4700::6810:84e5"]}))
    target = policy.target("http://v6.example.org:8080/x")
    assert target.connect_url == "http://[2606:4700::6810:84e5]:8080/x"
    assert target.host_header == "v6.example.org:8080"


def test_allow_hosts_by_exact_name_address_and_cidr():
    policy = parse_allow_hosts(["Intranet.Example", "127.0.0.1", "10.20.0.0/16", "[fd00::1]"])
    policy = WebPolicy(policy.names, policy.networks, resolver({
        "intranet.example": ["10.9.9.9"], "wiki.intranet.example": ["10.9.9.9"],
        "build.lan": ["10.20.3.4"], "other.lan": ["10.21.0.1"]}))
    assert policy.target("http://intranet.example/").address == "10.9.9.9"
    assert policy.target("http://127.0.0.1:9/").address == "127.0.0.1"
    assert policy.target("http://build.lan/").address == "10.20.3.4"
    assert policy.target("http://[fd00::1]/").address == "fd00::1"
    for refused in ("http://wiki.intranet.example/", "http://other.lan/", "http://127.0.0.2/"):
        with pytest.raises(WebRefused):
            policy.target(refused)


@pytest.mark.parametrize(("url", "words"), [
    ("", "the url is empty"),
    ("ftp://example.org/file", "only http and https"),
    ("file:///etc/passwd", "only http and https"),
    ("http://user:secret@example.org/", "user name or password"),
    ("http:///nohost", "has no host"),
    ("http://example.org:99999/", "not a valid URL"),
])
def test_bad_urls_are_one_clear_tool_error(url, words):
    with pytest.raises(ToolError) as caught:
        WebPolicy(resolve=resolver({})).target(url)
    assert words in caught.value.message


@pytest.mark.parametrize("raw", ["localhost", [""], [5], ["10.0.0.0/33"], ["http://x/"], ["a b"]])
def test_malformed_allow_hosts_is_one_clear_error(raw):
    with pytest.raises(ValueError) as caught:
        parse_allow_hosts(raw)
    assert "`web.allow_hosts`" in str(caught.value) and "\n" not in str(caught.value)
