"""The bus's envelope (issue 33, finding 7): every Redis message the nodes publish is sealed with an
HMAC-SHA256 under the cluster's shared secret (``NIUGUI_CLUSTER_SECRET`` or ``--cluster-secret-file``),
over the channel it is published on, the sender's instance, a counter and the time. A receiver drops,
and counts, any message that is unsealed, sealed under another secret, for another channel, too old
or from the future (more than :data:`WINDOW` seconds), or a replay (a counter not above the last one
it accepted from that instance). Whoever can publish on Redis but lacks the secret can make a node do
nothing.

The first line is the seal, the rest the bus's lines:
``v1 <instance> <counter> <unix ms> <hex MAC>``.

>>> sealer, opener = Sealer(b"k" * 32, "n1"), Opener(b"k" * 32)
>>> sealed = sealer.seal("p:to:n2", "line one\\nline two", now=1000.0)
>>> opener.open("p:to:n2", sealed, now=1001.0)
'line one\\nline two'
>>> opener.open("p:to:n2", sealed, now=1001.0)  # the same message again
Traceback (most recent call last):
...
niugui.server.cluster.seal.Unsealed: replay
>>> Opener(b"x" * 32).open("p:to:n2", sealer.seal("p:to:n2", "a", now=1000.0), now=1000.0)
Traceback (most recent call last):
...
niugui.server.cluster.seal.Unsealed: bad_mac
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

VERSION = "v1"
WINDOW = 30.0
"""Seconds a sealed message stays acceptable (the nodes' clocks must agree within this: NTP)."""
MIN_SECRET = 16
"""Bytes a cluster secret has at least."""


class Unsealed(ValueError):
    """A Redis message whose seal does not hold; its text is the reason (a metric's label)."""


def check_secret(secret: bytes) -> bytes:
    """``secret`` when long enough to seal with.

    >>> check_secret(b"short")
    Traceback (most recent call last):
    ...
    ValueError: the cluster secret must have at least 16 bytes (docs/scaling.md)
    """
    if len(secret) < MIN_SECRET:
        raise ValueError(f"the cluster secret must have at least {MIN_SECRET} bytes (docs/scaling.md)")
    return secret


def _mac(secret: bytes, channel: str, head: str, body: str) -> str:
    message = f"{channel}\n{head}\n{body}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


class Sealer:
    """Seals what one node publishes; its instance name is new at each start, so a restarted node's
    counter may start again at 1."""

    def __init__(self, secret: bytes, node_id: str) -> None:
        self._secret = check_secret(secret)
        self.instance = f"{node_id}.{secrets.token_hex(4)}"
        self._counter = 0

    def seal(self, channel: str, body: str, now: float | None = None) -> str:
        self._counter += 1
        stamp = int((time.time() if now is None else now) * 1000)
        head = f"{VERSION} {self.instance} {self._counter} {stamp}"
        return f"{head} {_mac(self._secret, channel, head, body)}\n{body}"


class Opener:
    """Checks what one node receives: the seal, the time, and each sender instance's counter."""

    def __init__(self, secret: bytes) -> None:
        self._secret = check_secret(secret)
        self._seen: dict[str, tuple[int, float]] = {}
        """Sender instance → the last counter accepted from it, and when (unix seconds)."""
        self._pruned = 0.0

    def open(self, channel: str, data: str, now: float | None = None) -> str:
        """The body of a sealed message ``data`` received on ``channel``; :class:`Unsealed` if none."""
        now = time.time() if now is None else now
        first, _, body = data.partition("\n")
        parts = first.split(" ")
        if len(parts) != 5 or parts[0] != VERSION:
            raise Unsealed("unsealed")
        _, instance, counter_text, stamp_text, mac = parts
        head = first.rpartition(" ")[0]
        if not hmac.compare_digest(mac, _mac(self._secret, channel, head, body)):
            raise Unsealed("bad_mac")
        try:
            counter, stamp = int(counter_text), int(stamp_text) / 1000
        except ValueError:
            raise Unsealed("unsealed") from None
        if abs(now - stamp) > WINDOW:
            raise Unsealed("stale")
        last = self._seen.get(instance)
        if last is not None and counter <= last[0]:
            raise Unsealed("replay")
        self._seen[instance] = (counter, now)
        if now - self._pruned > WINDOW:  # instances unheard of for two windows: any replay is stale
            self._pruned = now
            self._seen = {k: v for k, v in self._seen.items() if now - v[1] <= 2 * WINDOW}
        return body
