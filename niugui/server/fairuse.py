"""Fair use (docs/security.md): every set of rate-limit buckets the app keeps, owned by one
:class:`FairUse`, charged before a request and settled after it.

HTTP (the :class:`~niugui.server.guard.Guard` middleware has the per-request limits): new guest
accounts per address, login attempts per address, failed logins per username. WebSocket: messages
per account and per address (each connection has its own bucket too), new tables per account and
per address, quick chat per connection, per account and per table, quick-play requests per account
and per address, table-id and join-code guesses per
account and per address, and the cap on unfinished
tables of search bots. A refused HTTP request raises :class:`~fastapi.HTTPException` (429 with
``Retry-After``); a refused WebSocket request raises :class:`~niugui.server.tables.Fault`.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Protocol

from .config import Limits
from .http_errors import refuse
from .limits import Exempt, KeyedBuckets, TokenBucket, address_key, take_all
from .metrics import Metrics
from .tables import Fault
from .ws.connection import Connection

PER_HOUR = 1 / 3600
READ_ADDRESS_FACTOR = 4
"""Signed-in expensive reads are counted per account, and their address's together get this many
times one budget (so one address's many accounts stay bounded; anonymous reads share one budget)."""
READ_WAIT = 2.0
"""Seconds an expensive read waits for one of the ``reads_at_once`` places before it answers 503."""


class SharedCount(Protocol):
    """Messages counted across a cluster's nodes (niugui/server/cluster/caps.py)."""

    def over(self, account: str) -> bool:
        """Count one message of ``account``; whether the cluster refuses it."""


class FairUse:
    """The app's sets of keyed buckets, and which tables each address created (the search cap).

    >>> from fastapi import HTTPException
    >>> fair = FairUse(Limits(guests_per_address_hour=1), Exempt.parse(["127.0.0.1"]), Metrics())
    >>> fair.charge_guest("10.0.0.1")
    >>> try:
    ...     fair.charge_guest("10.0.0.1")
    ... except HTTPException as refused:
    ...     print(refused.status_code, refused.detail["code"], refused.headers)
    429 too_many_guests {'Retry-After': '3600'}
    >>> fair.charge_guest("127.0.0.1"), fair.address("127.0.0.1")  # exempt: never counted
    (None, None)
    """

    def __init__(self, limits: Limits, exempt: Exempt, metrics: Metrics) -> None:
        self.limits = limits
        self.exempt = exempt
        self.metrics = metrics
        self.guests = KeyedBuckets(limits.guests_per_address_hour * PER_HOUR, limits.guests_per_address_hour)
        self.logins = KeyedBuckets(limits.logins_per_address_minute / 60, limits.logins_per_address_minute)
        self.failures = KeyedBuckets(
            limits.login_failures_per_account_hour * PER_HOUR, limits.login_failures_per_account_hour
        )
        self.messages_by_account = KeyedBuckets(limits.account_rate, limits.account_burst)
        self.messages_by_address = KeyedBuckets(limits.address_rate, limits.address_burst)
        self.tables_by_account = KeyedBuckets(
            limits.tables_per_account_hour * PER_HOUR, limits.tables_per_account_hour
        )
        self.tables_by_address = KeyedBuckets(
            limits.tables_per_address_hour * PER_HOUR, limits.tables_per_address_hour
        )
        self.guesses_by_account = KeyedBuckets(
            limits.code_guesses_per_minute / 60, limits.code_guesses_per_minute
        )
        self.guesses_by_address = KeyedBuckets(
            limits.code_guesses_per_address_minute / 60, limits.code_guesses_per_address_minute
        )
        self.chat_by_account = KeyedBuckets(limits.chat_account_rate, limits.chat_account_burst)
        self.chat_by_table = KeyedBuckets(limits.chat_table_rate, limits.chat_table_burst)
        self.reads_by_address = KeyedBuckets(limits.read_rate, limits.read_burst)
        self.reads_by_account = KeyedBuckets(limits.read_rate, limits.read_burst)
        self.reads_signed_in = KeyedBuckets(
            limits.read_rate * READ_ADDRESS_FACTOR, limits.read_burst * READ_ADDRESS_FACTOR
        )
        """The signed-in reads of each address, all accounts together."""
        self.reads_at_once = threading.BoundedSemaphore(limits.reads_at_once or 1_000_000)
        self.quick_by_account = KeyedBuckets(limits.quick_account_rate, limits.quick_account_burst)
        self.quick_by_address = KeyedBuckets(limits.quick_address_rate, limits.quick_address_burst)
        self.flooded: OrderedDict[str, float] = OrderedDict()
        """Address → until when its new WebSockets are refused: one of its connections was cut for
        flooding (issue 33, finding 2: reconnecting at once brought a new allowance)."""
        self.table_address: dict[str, str] = {}
        """Table id → the address that created it (in this process)."""
        self.cluster: SharedCount | None = None
        """On a cluster node: the messages of every node counted too (issue 32)."""

    def address(self, host: str | None) -> str | None:
        """The address key to count ``host`` by, or None when it is exempt."""
        return None if host in self.exempt else address_key(host)

    # ---- HTTP ----------------------------------------------------------------------------------------

    def charge_guest(self, host: str | None) -> None:
        """A new guest account from ``host``."""
        key = self.address(host)
        if key is not None and not self.guests.take(key):
            message = "too many new guest accounts from your address; try later"
            raise refuse(self.metrics, 429, "too_many_guests", message, 3600)

    def charge_login(self, host: str | None) -> None:
        """A login or registration attempt from ``host``."""
        key = self.address(host)
        if key is not None and not self.logins.take(key):
            message = "too many login attempts from your address; wait a minute"
            raise refuse(self.metrics, 429, "too_many_logins", message, 60)

    def check_failures(self, username: str) -> None:
        """Before a login: refused while ``username`` has no failed attempt left."""
        tries = self.failures.get(username.lower())
        if not tries.can_take():
            message = "too many failed logins for this username; try again later"
            raise refuse(self.metrics, 429, "too_many_failures", message, tries.retry_after())

    def count_failure(self, username: str) -> None:
        """After a login that failed."""
        self.failures.get(username.lower()).take()

    @contextmanager
    def expensive_read(self, host: str | None, account_id: str | None = None) -> Iterator[None]:
        """A leaderboard, a profile or a player's games read for ``host``: from its budget of
        expensive reads (:meth:`charge_read`), and :meth:`reading` the database. Run it off the event
        loop: it may wait."""
        self.charge_read(host, account_id)
        with self.reading():
            yield

    def charge_read(self, host: str | None, account_id: str | None = None) -> None:
        """An expensive read for ``host`` (429 ``too_many_reads``; issue 33, finding 3): signed in
        (``account_id``), from the account's budget and its address's signed-in budget
        (:data:`READ_ADDRESS_FACTOR` times one), so that people behind one address (a school, a
        carrier's NAT) do not share one; anonymous, from the address's budget."""
        key = self.address(host)
        if key is None or not self.limits.read_rate:
            return
        if account_id is None:
            buckets = [self.reads_by_address.get(key)]
        else:
            buckets = [self.reads_by_account.get(account_id), self.reads_signed_in.get(key)]
        if not take_all(buckets):
            wait = max(b.retry_after() for b in buckets)
            raise refuse(self.metrics, 429, "too_many_reads", "too many leaderboards or profiles; wait", wait)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One of at most ``reads_at_once`` expensive reads using the database at once (503 ``busy``
        after :data:`READ_WAIT` s), so that no address, nor all together, hold the database's pool."""
        if not self.reads_at_once.acquire(timeout=READ_WAIT):
            raise refuse(self.metrics, 503, "busy", "the server is busy; try again in a moment", 1)
        try:
            yield
        finally:
            self.reads_at_once.release()

    # ---- WebSocket -----------------------------------------------------------------------------------

    def over_rate(self, connection: Connection) -> bool:
        """Take a token from the connection's, the account's and the address's buckets, or none."""
        buckets = [connection.bucket, self.messages_by_account.get(connection.account_id)]
        if connection.address:
            buckets.append(self.messages_by_address.get(connection.address))
        if self.cluster is not None and self.cluster.over(connection.account_id):
            return True
        return not take_all(buckets)

    def cut_for_flooding(self, connection: Connection, seconds: float) -> None:
        """``connection`` was cut for flooding: its address opens no WebSocket for ``seconds``."""
        if connection.address:
            self.flooded[connection.address] = time.monotonic() + seconds
            self.flooded.move_to_end(connection.address)
            while len(self.flooded) > 100_000:
                self.flooded.popitem(last=False)

    def flooding(self, address: str | None) -> float:
        """Seconds until ``address`` may open a WebSocket again (0: now)."""
        until = self.flooded.get(address or "")
        if until is None:
            return 0.0
        left = until - time.monotonic()
        if left <= 0:
            del self.flooded[address or ""]
        return max(0.0, left)

    def charge_table(self, connection: Connection) -> None:
        """A new table. Taken when asked, not when the table exists: requests in flight at once
        must not all pass."""
        if not take_all(self._table_buckets(connection)):
            self.metrics.limited.labels("tables").inc()
            raise Fault(
                "rate_limited",
                f"at most {self.limits.tables_per_account_hour:g} new tables per hour; use one you have",
            )

    def refund_table(self, connection: Connection) -> None:
        """No table was made after all."""
        for bucket in self._table_buckets(connection):
            bucket.give_back()

    def table_made(self, connection: Connection, table_id: str) -> None:
        """``connection`` created ``table_id`` (its address counts it under the search cap)."""
        if connection.address:
            self.table_address[table_id] = connection.address

    def charge_chat(self, connection: Connection, table: str) -> None:
        """A quick-chat message to ``table``: from the connection's, its account's and the table's
        buckets, so that reconnecting brings no new allowance and a table's chat is bounded whoever
        speaks (issue 33, finding 5)."""
        if not take_all(self._chat_buckets(connection, table)):
            self.metrics.limited.labels("chat").inc()
            raise Fault("rate_limited", "too much quick chat; wait a moment")

    def refund_chat(self, connection: Connection, table: str) -> None:
        """No chat was relayed (not seated, no such table): the account's and the table's tokens are
        given back, so that nobody drains a table's allowance by chatting where they are not seated."""
        for bucket in self._chat_buckets(connection, table)[1:]:
            bucket.give_back()

    def charge_quick(self, connection: Connection) -> None:
        """A quick-play request: from the account's and the address's buckets, since each one runs
        the matcher (issue 33, finding 1)."""
        if not take_all(self._quick_buckets(connection)):
            self.metrics.limited.labels("quick").inc()
            raise Fault("rate_limited", "too many quick-play requests; wait a moment")

    def refund_quick(self, connection: Connection) -> None:
        """The request was refused (not waiting, bots not yet allowed): the matcher did not run."""
        for bucket in self._quick_buckets(connection):
            bucket.give_back()

    def _quick_buckets(self, connection: Connection) -> list[TokenBucket]:
        mine = [self.quick_by_account.get(connection.account_id)]
        if connection.address:
            mine.append(self.quick_by_address.get(connection.address))
        return mine

    def _chat_buckets(self, connection: Connection, table: str) -> list[TokenBucket]:
        return [
            connection.chat_bucket,
            self.chat_by_account.get(connection.account_id),
            self.chat_by_table.get(table),
        ]

    def charge_guess(self, connection: Connection) -> None:
        """A table id or join code tried (``watch``, ``sit``): taken as if it were wrong, given back
        (:meth:`refund_guess`) when it was right, so that guesses in flight count."""
        if not take_all(self._guess_buckets(connection)):
            self.metrics.limited.labels("guesses").inc()
            raise Fault("rate_limited", "too many wrong table ids or join codes; wait a minute")

    def refund_guess(self, connection: Connection) -> None:
        """The table id and code were right (or refused for another reason): not a guess."""
        for bucket in self._guess_buckets(connection):
            bucket.give_back()

    def check_search_cap(
        self, connection: Connection, changing: str | None, open_tables: Iterable[tuple[str, str, str]]
    ) -> None:
        """At most ``search_tables_per_account`` (and per address) unfinished tables of search bots,
        among ``open_tables`` (id, creator, bot level), ``changing`` not counted."""
        limits = self.limits
        mine = by_address = 0
        for table_id, creator, level in open_tables:
            if level != "search" or table_id == changing:
                continue
            mine += creator == connection.account_id
            by_address += bool(connection.address) and self.table_address.get(table_id) == connection.address
        if (limits.search_tables_per_account and mine >= limits.search_tables_per_account) or (
            limits.search_tables_per_address and by_address >= limits.search_tables_per_address
        ):
            self.metrics.limited.labels("search_tables").inc()
            raise Fault(
                "forbidden",
                f"search bots think hard: at most {limits.search_tables_per_account} tables of them "
                "at a time; choose another bot_level or finish one",
            )

    def _table_buckets(self, connection: Connection) -> list[TokenBucket]:
        mine = [self.tables_by_account.get(connection.account_id)]
        if connection.address:
            mine.append(self.tables_by_address.get(connection.address))
        return mine

    def _guess_buckets(self, connection: Connection) -> list[TokenBucket]:
        mine = [self.guesses_by_account.get(connection.account_id)]
        if connection.address:
            mine.append(self.guesses_by_address.get(connection.address))
        return mine
