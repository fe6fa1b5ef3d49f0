"""Who counts as distinct people for ratings (issue 33, finding 8): quick play never seats two accounts
from one address at one table, so one person's guests cannot be matched together again and again.
A small pure predicate, which the quick-play matcher asks of every pair it would seat together.

An *origin* is the address key a connection is counted by (:func:`niugui.server.limits.address_key`:
an IPv4 address or an IPv6 /64). It is empty when unknown, for an address exempt from the limits
(``--exempt``, a load bench), and for loopback — the server's own machine, where tests run and where
a reverse proxy without ``--trust-proxy`` would make every client one address (and so quick play
impossible for all); behind a proxy, pass ``--trust-proxy``. Accounts have no device id in the
protocol: one device's accounts share its address, which is what is compared.

>>> distinct("10.0.0.1", "10.0.0.2"), distinct("10.0.0.1", "10.0.0.1"), distinct("", "")
(True, False, True)
>>> from niugui.server.limits import address_key  # what a connection's address is: a key
>>> [origin(address_key(host)) for host in ("127.0.0.1", "::1", "203.0.113.9", "2001:db8::5", None)]
['', '', '203.0.113.9', '2001:db8::/64', '']
"""

from __future__ import annotations

import ipaddress

from .limits import UNKNOWN_ADDRESS

LOOPBACK_V6 = ipaddress.ip_address("::1")


def origin(address: str | None) -> str:
    """The origin quick play compares: ``address`` (an address key), or '' when unknown or loopback."""
    if not address or address == UNKNOWN_ADDRESS:
        return ""
    try:
        network = ipaddress.ip_network(address, strict=False)
    except ValueError:
        return address
    loopback = network.is_loopback or LOOPBACK_V6 in network  # ::1's key is its /64, ::/64
    return "" if loopback else address


def distinct(one: str, other: str) -> bool:
    """May two accounts of these origins be seated at one quick-play table (rated)?"""
    return not one or not other or one != other
