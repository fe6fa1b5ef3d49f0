"""Fair use: token buckets (per connection, per account, per address) and connection counts.

Everything here is in memory and cheap: a bucket is three floats, a count an int in a dict. Keys
are account ids or *address keys* (an IPv4 address, or the /64 network of an IPv6 address, since
one IPv6 host commonly holds a whole /64).

>>> bucket = TokenBucket(rate=1.0, burst=2.0)
>>> bucket.take(), bucket.take(), bucket.take()
(True, True, False)
>>> address_key("2001:db8::1") == address_key("2001:db8::ffff"), address_key("10.0.0.7")
(True, '10.0.0.7')
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second; each action takes one."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst, self.tokens, self.stamp = rate, burst, burst, time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self) -> bool:
        self._refill()
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def give_back(self) -> None:
        """Return a token taken for something that did not happen after all."""
        self.tokens = min(self.burst, self.tokens + 1.0)

    def can_take(self) -> bool:
        """Whether :meth:`take` would succeed now (takes nothing)."""
        self._refill()
        return self.tokens >= 1.0

    def retry_after(self) -> float:
        """Seconds until one token is back (0 when one is there)."""
        self._refill()
        return 0.0 if self.tokens >= 1.0 else (1.0 - self.tokens) / self.rate if self.rate > 0 else 3600.0


class KeyedBuckets:
    """One :class:`TokenBucket` per key (account, address, username), created on first use.

    At most ``max_keys`` are kept; the least recently used is forgotten first (a forgotten key
    starts again with a full burst, so the bound costs little and keeps a flood of fresh keys from
    growing memory without end).
    """

    def __init__(self, rate: float, burst: float, max_keys: int = 100_000) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def get(self, key: str) -> TokenBucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst)
            if len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket

    def take(self, key: str) -> bool:
        return self.get(key).take()

    def take_all(self, keys: Iterable[str]) -> bool:
        """Take one token from each key's bucket, or none at all if any of them is empty."""
        return take_all([self.get(k) for k in keys])


def take_all(buckets: Iterable[TokenBucket]) -> bool:
    """Take one token from each bucket, or none at all if any of them is empty (every message of a
    connection passes three: one clock reading for all of them).

    >>> full, empty = TokenBucket(1.0, 2.0), TokenBucket(0.0, 1.0)
    >>> take_all([empty]), take_all([full, empty]), full.tokens, take_all([full])
    (True, False, 2.0, True)
    """
    now = time.monotonic()
    ready = True
    for b in buckets:
        b.tokens = min(b.burst, b.tokens + (now - b.stamp) * b.rate)
        b.stamp = now
        ready = ready and b.tokens >= 1.0
    if ready:
        for b in buckets:
            b.tokens -= 1.0
    return ready


class Counter:
    """How many of something (open connections, tables) each key holds now."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def __getitem__(self, key: str) -> int:
        return self._counts.get(key, 0)

    def add(self, key: str) -> None:
        self._counts[key] = self._counts.get(key, 0) + 1

    def remove(self, key: str) -> None:
        left = self._counts.get(key, 0) - 1
        if left > 0:
            self._counts[key] = left
        else:
            self._counts.pop(key, None)


UNKNOWN_ADDRESS = "?"
"""The key of a connection whose address is not known: no one's in particular for quick play."""


def address_key(host: str | None) -> str:
    """The key per-address limits count by: the IPv4 address, an IPv6 address's /64."""
    if not host:
        return UNKNOWN_ADDRESS
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


@dataclass(frozen=True)
class Exempt:
    """Networks that per-address limits do not apply to (e.g. a load generator on loopback)."""

    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    @classmethod
    def parse(cls, specs: Iterable[str]) -> Exempt:
        return cls(tuple(ipaddress.ip_network(s, strict=False) for s in specs))

    def __contains__(self, host: object) -> bool:
        if not self.networks or not isinstance(host, str):
            return False
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(ip in net for net in self.networks)
