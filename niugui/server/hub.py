"""The hub: every table in memory, rebuilt from the store at startup, and the routing of client requests."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from typing import Any

from . import logs
from .config import Config
from .metrics import Metrics
from .protocol import (
    Autoplay,
    CreateTable,
    FillBots,
    Leave,
    ListTables,
    Message,
    Pass,
    Ping,
    Play,
    Ready,
    Sit,
    Stand,
    TableSettings,
    UpdateSettings,
    Watch,
)
from .runtime import Client, Fault, TableRuntime
from .store import Store

MAX_OPEN_TABLES = 20
"""Unfinished tables one account may have created (so nobody can fill the server with tables)."""
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def _short_id(length: int) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


class Hub:
    def __init__(self, store: Store, config: Config, metrics: Metrics) -> None:
        self.store = store
        self.config = config
        self.metrics = metrics
        self.tables: dict[str, TableRuntime] = {}
        self.clients: dict[Client, set[str]] = {}  # connection -> tables it is subscribed to
        self._reloading: set[str] = set()  # tables being reloaded (a failed write then must not recurse)

    # ---- startup ---------------------------------------------------------------------------------

    def restore(self) -> None:
        """Rebuild every unfinished table by replaying its stored events; re-arm timers."""
        for table_id in self.store.table_ids():
            table = self._rebuild(table_id)
            self.tables[table_id] = table
            table.resume()
        self.metrics.tables.set(len(self.tables))
        logs.info("tables restored", tables=len(self.tables))

    def _rebuild(self, table_id: str) -> TableRuntime:
        row = self.store.table_row(table_id)
        assert row is not None
        events = self.store.events(table_id)
        first = events[0].payload
        table = self._new_runtime(
            table_id, row["creator"], row["code"], TableSettings.model_validate(first["settings"])
        )
        table.restoring = True
        for stored in events:
            table.reduce(stored.seq, stored.created_at, stored.payload)
        return table

    def _new_runtime(
        self, table_id: str, creator: str, code: str | None, settings: TableSettings
    ) -> TableRuntime:
        table = TableRuntime(
            id=table_id,
            creator=creator,
            code=code,
            settings=settings,
            store=self.store,
            config=self.config,
            metrics=self.metrics,
        )
        table.on_reload = self._reload
        return table

    def _reload(self, broken: TableRuntime) -> None:
        """After a failed write: drop the in-memory table and rebuild it from what was stored."""
        broken.cancel_timer()
        if broken.id in self._reloading:
            return
        try:
            table = self._rebuild(broken.id)
        except Exception:
            logs.exception("could not reload the table", table=broken.id)
            return
        table.subscribers = broken.subscribers
        self.tables[broken.id] = table
        table.restoring = False
        for client in list(table.subscribers):
            seat = table.seat_of(client.account_id)
            client.send(
                {
                    "type": "snapshot",
                    "table": table.id,
                    "seq": table.seq,
                    "view": table.view(seat, history=True),
                    "state": table.state(seat),
                }
            )
        self._reloading.add(table.id)
        try:
            with contextlib.suppress(Fault):
                table.carry_on()
        finally:
            self._reloading.discard(table.id)

    # ---- connections -----------------------------------------------------------------------------

    def connect(self, client: Client) -> dict[str, Any]:
        self.clients[client] = set()
        seats = []
        for table in self.tables.values():
            seat = table.seat_of(client.account_id)
            if seat is not None:
                seats.append({"table": table.id, "seat": seat})
        return {"seats": seats}

    def disconnect(self, client: Client) -> None:
        for table_id in self.clients.pop(client, set()):
            table = self.tables.get(table_id)
            if table is not None:
                with contextlib.suppress(Fault):
                    table.unsubscribe(client)

    # ---- requests --------------------------------------------------------------------------------

    def handle(self, client: Client, message: Message) -> dict[str, Any]:
        """Carry out a request; the ack's fields (``seq``, ``data``). Raises :class:`Fault`."""
        if isinstance(message, Ping):
            return {}
        if isinstance(message, ListTables):
            return {"data": {"tables": self.lobby(client.account_id)}}
        if isinstance(message, CreateTable):
            table = self.create_table(client, message.settings)
            self._subscribe(client, table, None)
            return {"seq": table.seq, "data": {"table": table.summary(client.account_id)}}
        table_ref: str = getattr(message, "table")  # noqa: B009 - every other message names a table
        # Only watch and sit, which check the code, may name a table by its join code; to anyone else
        # a private table answers every other request as if it did not exist (no oracle for codes).
        table = self._table(table_ref, by_code=isinstance(message, Watch | Sit))
        if not isinstance(message, Watch | Sit) and not self._member(client, table):
            raise Fault("not_found", f"no table {table_ref!r}, or not with that join code")
        # a table named by its join code alone was named with its code
        code = (
            table_ref
            if table.code is not None and table_ref == table.code
            else getattr(message, "code", None)
        )
        if isinstance(message, Watch):
            self._check_code(client, table, message.code or code)
            self._subscribe(client, table, message.last_seq)
            return {"seq": table.seq, "data": {"seat": table.seat_of(client.account_id)}}
        if isinstance(message, Sit):
            self._check_code(client, table, message.code or code)
            self.clients.setdefault(client, set()).add(table.id)
            seat = table.sit(client, message.seat)
            return {"seq": table.seq, "data": {"seat": seat}}
        if isinstance(message, Stand):
            table.stand(client)
        elif isinstance(message, Leave):
            if table.seat_of(client.account_id) is not None:
                table.stand(client)
            table.unsubscribe(client)
            self.clients.get(client, set()).discard(table.id)
        elif isinstance(message, Ready):
            table.ready(client)
        elif isinstance(message, Play):
            table.act(client, list(message.cards))
        elif isinstance(message, Pass):
            table.act(client, None)
        elif isinstance(message, Autoplay):
            table.set_autoplay(client, message.on)
        elif isinstance(message, FillBots):
            table.fill_bots(client)
        elif isinstance(message, UpdateSettings):
            table.update_settings(client, message.settings)
        else:  # pragma: no cover - the protocol models and this list change together
            raise Fault("unknown_type", f"no handler for {type(message).__name__}")
        return {"seq": table.seq}

    def lobby(self, account_id: str | None = None) -> list[dict[str, Any]]:
        return [
            t.summary(account_id)
            for t in self.tables.values()
            if not t.settings.private and t.status != "finished"
        ]

    def create_table(self, client: Client, settings: TableSettings) -> TableRuntime:
        mine = sum(
            1 for t in self.tables.values() if t.creator == client.account_id and t.status != "finished"
        )
        if mine >= MAX_OPEN_TABLES:
            raise Fault("forbidden", f"you already have {mine} open tables; use one of them")
        table_id = _short_id(8)
        code = _short_id(6) if settings.private else None
        table = self._new_runtime(table_id, client.account_id, code, settings)
        event = {"kind": "table_created", "settings": settings.model_dump(), "creator": client.account_id}
        self.store.create_table(table_id, client.account_id, code, event)
        table.reduce(1, logs.now(), event)
        self.tables[table_id] = table
        self.metrics.tables.set(len(self.tables))
        logs.info("table created", table=table_id, private=settings.private)
        return table

    def _table(self, table_id: str, by_code: bool = False) -> TableRuntime:
        table = self.tables.get(table_id)
        if table is None and by_code:  # a private table may be named by its join code ("join by code")
            table = next((t for t in self.tables.values() if t.code is not None and t.code == table_id), None)
        if table is None:
            raise Fault("not_found", f"no table {table_id!r}, or not with that join code")
        return table

    def _member(self, client: Client, table: TableRuntime) -> bool:
        """Public table, or its creator, a seated player, or a subscriber who gave the code."""
        return (
            not table.settings.private
            or client.account_id == table.creator
            or table.seat_of(client.account_id) is not None
            or table.id in self.clients.get(client, ())
        )

    def _check_code(self, client: Client, table: TableRuntime, code: str | None) -> None:
        if not table.settings.private or client.account_id == table.creator:
            return
        if table.seat_of(client.account_id) is not None:
            return
        if code is None or not secrets.compare_digest(code, table.code or ""):
            raise Fault("not_found", f"no table {table.id!r}, or not with that join code")

    def _subscribe(self, client: Client, table: TableRuntime, last_seq: int | None) -> None:
        self.clients.setdefault(client, set()).add(table.id)
        table.subscribe(client, last_seq)

    # ---- hooks of the transport's fair-use limits and expiry (niugui/server/limits.py, expiry.py) -----

    def open_tables(self) -> Iterator[tuple[str, str, str]]:
        """(table id, creator, bot level) of every table in memory that is not finished."""
        for t in self.tables.values():
            if t.status != "finished":
                yield t.id, t.creator, t.settings.bot_level

    def activity(self) -> Iterator[tuple[str, str, float, int]]:
        """(table id, status, time of its last event, connections subscribed) of every table."""
        for t in list(self.tables.values()):
            yield t.id, t.status, t.recent[-1][1] if t.recent else 0.0, len(t.subscribers)

    def close(self, table_id: str) -> None:
        """End an abandoned table (not in play): it is ``finished``, so not rebuilt at a restart."""
        table = self.tables[table_id]
        if table.status not in ("waiting", "between"):
            raise Fault("bad_state", f"the table is {table.status}")
        table.cancel_timer()
        table.emit({"kind": "table_finished", "totals": list(table.series.totals)})

    def forget(self, table_id: str) -> None:
        """Drop a table from memory (its events, games and ledger stay in the store)."""
        table = self.tables.pop(table_id, None)
        if table is None:
            return
        table.cancel_timer()
        for client in list(table.subscribers):
            self.clients.get(client, set()).discard(table_id)
        table.subscribers.clear()
        self.metrics.tables.set(len(self.tables))
