"""New tables: their ids and join codes, and the quota of unfinished tables per account.

>>> len(short_id(8)), set(short_id(50)) <= set(ALPHABET)
(8, True)
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from . import logs
from .directory import Directory
from .metrics import Metrics
from .protocol import TableData, TableSettings
from .restore import TableLoader
from .tables import Answer, Client, Fault, Reply, Table, TableModel

MAX_OPEN_TABLES = 20
"""Unfinished tables one account may have created (so nobody can fill the server with tables)."""
ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
"""Of table ids and join codes: no 0/o, 1/l/i to misread when a code is read out."""


def short_id(length: int) -> str:
    """A random id of ``length`` characters of :data:`ALPHABET`."""
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


class TableFactory:
    """Creates tables: checked against the quota, put in the directory, their creation stored."""

    def __init__(self, directory: Directory, loader: TableLoader, metrics: Metrics) -> None:
        self.directory, self.loader, self.metrics = directory, loader, metrics

    def open(self, state: TableModel) -> Table:
        """A new table for ``state``, in the directory (its creation not yet stored)."""
        table = self.loader.new(state)
        self.directory.add(table)
        self.metrics.tables.set(len(self.directory.tables))
        return table

    def create(
        self, client: Client, settings: TableSettings, reply: Reply, table_id: str | None = None
    ) -> Table:
        """A new table; the creator is subscribed to it (not seated). Ack data: the table's summary."""
        account = client.account_id
        mine = self.directory.created_by(account)
        if mine >= MAX_OPEN_TABLES:
            raise Fault("forbidden", f"you already have {mine} open tables; use one of them")
        table_id = table_id or short_id(8)
        code = short_id(6) if settings.private else None
        table = self.open(TableModel(table_id, creator=account, code=code, settings=settings))

        def created(answer: Answer | BaseException) -> None:
            if isinstance(answer, BaseException):
                reply(answer)
                return
            logs.info("table created", table=table_id, private=settings.private)
            self.directory.follow(client, table_id)
            table.subscribe(client, None, with_data(reply, lambda: table.summary(account)))

        table.create(settings, created)
        return table


def with_data(reply: Reply, data: Callable[[], TableData]) -> Reply:
    """``reply``, its answer's data replaced by ``data()`` when it succeeds."""

    def answer(outcome: Answer | BaseException) -> None:
        if isinstance(outcome, BaseException):
            reply(outcome)
        else:
            reply(Answer(outcome.seq, data()))

    return answer
