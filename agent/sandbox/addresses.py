"""The one judge of "a public address": the egress proxy of `network: public`
(agent/sandbox/egress.py) and the web tools (agent/tools/web/policy.py) both ask it.

Public means on the public internet: not loopback, private (RFC 1918, fc00::/7),
link-local (169.254.0.0/16 - cloud metadata -, fe80::/10), site-local (fec0::/10),
shared (CGNAT), multicast, unspecified, reserved or documentation. An IPv6 address that
carries an IPv4 address is judged by that address: IPv4-mapped (::ffff:a.b.c.d),
IPv4-compatible (::a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), 6to4 (2002:AABB:CCDD::)
and NAT64 (64:ff9b::/96); local-use NAT64 (64:ff9b:1::/48) and Teredo (2001::/32,
whose client address is hidden by design) are refused whole.
"""

from __future__ import annotations

import ipaddress

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

NAT64 = ipaddress.ip_network("64:ff9b::/96")
REFUSED_V6 = tuple(ipaddress.ip_network(n) for n in (
    "64:ff9b:1::/48",  # local-use NAT64 (RFC 8215): translators on private networks
    "2001::/32",  # Teredo
    "fec0::/10",  # site-local (deprecated, still routed inside some sites)
))
TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # SIIT IPv4-translated (RFC 2765)
COMPATIBLE = ipaddress.ip_network("::/96")  # IPv4-compatible (deprecated), :: and ::1 included


def embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries, when it is one of the forms above."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in NAT64 or ip in TRANSLATED or ip in COMPATIBLE:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def is_public(ip: Address | str) -> bool:
    """True for an address on the public internet (see the module docstring); a text
    address may carry an IPv6 zone (`fe80::1%eth0`), which is ignored."""
    if isinstance(ip, str):
        ip = ipaddress.ip_address(ip.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if any(ip in net for net in REFUSED_V6):
            return False
        inner = embedded_v4(ip)
        if inner is not None:
            return is_public(inner)
    return ip.is_global and not (ip.is_multicast or ip.is_unspecified or ip.is_reserved
                                 or ip.is_link_local or ip.is_loopback or ip.is_private)
