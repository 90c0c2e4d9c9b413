"""Where the web tools may connect: public addresses only, unless the user listed more.

`WebPolicy.target(url)` decides before any packet is sent: the URL must be http(s)
without credentials; its host is resolved here and every address is judged - loopback,
private, link-local (cloud metadata at 169.254.169.254), multicast, unspecified,
reserved and shared (CGNAT) ranges are refused, in IPv6 too (::1, fc00::/7, fe80::/10,
fec0::/10, Teredo, the IPv4-mapped, -compatible, -translated, 6to4 and NAT64 forms judged
by the IPv4 address inside; agent/sandbox/addresses.py, the one judge, which the
sandbox's egress proxy asks too) - unless the host
name, the address or a CIDR range holding it is in config.yaml's `web: {allow_hosts:
[...]}`. The fetch then connects to the address judged here, never a second lookup (no
DNS rebinding): see agent/tools/web/fetch.py, which tries the allowed addresses in
order when one cannot be reached. Every redirect goes through `target` again.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from agent.errors import ToolError
from agent.sandbox.addresses import Address, is_public

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], list[str]]
EXAMPLE = "for example `web: {allow_hosts: [intranet.example, 10.0.0.0/8, 127.0.0.1]}`"


class WebRefused(ToolError):
    """A URL the web policy refuses (said before any connection is made)."""


@dataclass(frozen=True)
class Target:
    """A URL the policy accepted: where to connect and what to call the host."""

    url: str
    scheme: str
    host: str  # the name as written (lowercased): Host header and TLS server name
    port: int
    addresses: tuple[str, ...]  # the addresses judged and allowed, in the resolver's order

    @property
    def address(self) -> str:
        return self.addresses[0]

    @property
    def connect_url(self) -> str:
        return self.url_for(self.address)

    def url_for(self, address: str) -> str:
        """The URL with a checked address in place of the name."""
        parts = urlsplit(self.url)
        where = f"[{address}]" if ":" in address else address
        rest = parts.path or "/"
        if parts.query:
            rest += "?" + parts.query
        return f"{self.scheme}://{where}:{self.port}{rest}"

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        name = f"[{self.host}]" if ":" in self.host else self.host
        return name if self.port == default else f"{name}:{self.port}"


def system_resolver(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (A and AAAA), in the resolver's order."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ToolError(f"cannot resolve {host}: {exc}") from None
    seen: list[str] = []
    for info in infos:
        address = str(info[4][0]).split("%", 1)[0]
        if address not in seen:
            seen.append(address)
    return seen


@dataclass(frozen=True)
class WebPolicy:
    """The user's exceptions to "public addresses only" (config.yaml `web.allow_hosts`)."""

    names: frozenset[str] = frozenset()
    networks: tuple[Network, ...] = ()
    resolve: Resolver = field(default=system_resolver, compare=False)

    def allows(self, ip: Address) -> bool:
        return is_public(ip) or any(ip in net for net in self.networks if net.version == ip.version)

    def target(self, url: str) -> Target:
        """The accepted target of `url`, or WebRefused / ToolError saying why not."""
        scheme, host, port = _split(url)
        listed = host in self.names
        literal = _literal(host)
        addresses = [str(literal)] if literal is not None else self.resolve(host, port)
        if not addresses:
            raise ToolError(f"cannot resolve {host}: no addresses")
        allowed = tuple(str(ip) for ip in map(ipaddress.ip_address, addresses)
                        if listed or self.allows(ip))
        if allowed:
            return Target(url, scheme, host, port, allowed)
        shown = ", ".join(addresses[:3])
        raise WebRefused(
            f"refused to fetch {url}: {host} is a private or local address ({shown}), which "
            "web tools do not reach. The user may list it in config.yaml "
            "`web: {allow_hosts: [...]}`.")


def _split(url: str) -> tuple[str, str, int]:
    if not isinstance(url, str) or not url.strip():
        raise ToolError("the url is empty")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise ToolError(f"not a valid URL: {url!r} ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ToolError(f"only http and https URLs are fetched, not {url!r}")
    if parts.username is not None or parts.password is not None:
        raise ToolError("URLs with a user name or password are not fetched")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise ToolError(f"the URL has no host: {url!r}")
    return scheme, host, port or (443 if scheme == "https" else 80)


def _literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    try:  # the shorthand forms a resolver accepts: 127.1, 2130706433, 0x7f.1
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def parse_allow_hosts(raw: object, source: str = "config.yaml") -> WebPolicy:
    """`web.allow_hosts` as a WebPolicy; one ToolError-free ValueError line when malformed."""
    if raw is None:
        return WebPolicy()
    if not isinstance(raw, list) or any(not isinstance(v, str) or not v.strip() for v in raw):
        raise ValueError(f"{source}: `web.allow_hosts` must be a list of host names, addresses "
                         f"or CIDR ranges; {EXAMPLE}")
    names: set[str] = set()
    networks: list[Network] = []
    for entry in (v.strip().lower().rstrip(".") for v in raw):
        bare = entry[1:-1] if entry.startswith("[") and entry.endswith("]") else entry
        try:
            networks.append(ipaddress.ip_network(bare, strict=False))
            continue
        except ValueError:
            pass
        if "/" in entry or ":" in entry or " " in entry:
            raise ValueError(f"{source}: `web.allow_hosts` entry {entry!r} is neither a host "
                             f"name, an address nor a CIDR range; {EXAMPLE}")
        names.add(entry)
    return WebPolicy(frozenset(names), tuple(networks))
