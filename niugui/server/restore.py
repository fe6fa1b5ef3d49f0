"""Tables from the store: every unfinished table rebuilt at the start (or adopted by a cluster
node), and a table reloaded after a failed write. Reads of the store run away from the event loop
where the table goes on playing (``Services.read``)."""

from __future__ import annotations

from collections.abc import Callable

from . import logs
from .config import Config
from .directory import Directory
from .metrics import Metrics
from .protocol import EVENT_ADAPTER, EvDeal
from .store import Store, StoredTable
from .tables import Deal, Sent, Services, Stored, Table, TableModel, reduce, saved_state

Rebuilt = tuple[TableModel, list[Sent]]
"""A table's state replayed from its stored events, and its latest events (for reconnects)."""


class TableLoader:
    """Makes :class:`Table` objects: new ones, and ones replayed from the store."""

    def __init__(
        self, store: Store, config: Config, metrics: Metrics, services: Services, directory: Directory
    ) -> None:
        self.store, self.config, self.metrics = store, config, metrics
        self.services, self.directory = services, directory
        self.drops: Callable[[Table], bool] = lambda _table: False
        """After a failed write: True when a cluster node lost the table (and dropped it)."""
        self.outfit: Callable[[Table], None] = lambda _table: None
        """A rebuilt table given its own dealer and bots (a duplicate board's: issue 30); reads the store."""

    def new(self, state: TableModel) -> Table:
        return Table(state, self.services, self.config, self.metrics, on_failure=self.reload)

    def replay(self, table_id: str) -> Rebuilt | None:
        """The table rebuilt from the store (:meth:`replayed`); None if its creation was never stored.
        Only reads the store and builds new objects: it may run away from the event loop."""
        stored = self.store.stored_tables([table_id], self.config.replay_limit).get(table_id)
        return None if stored is None else self.replayed(table_id, stored)

    def replayed(self, table_id: str, stored: StoredTable) -> Rebuilt:
        """The table of what the store holds: its state stored before its latest deal and the events
        since (:mod:`.tables.saved_state`), or all its events when no game has that state. Pure: it
        may run away from the event loop."""
        deals = {
            g.id: Deal(g.game_no, g.first_drawer, tuple(g.deck), g.salt, g.commitment, g.meta)
            for g in stored.games
        }
        if stored.saved is None:  # no game stored with the table's state: from the first event
            state = TableModel(table_id, creator=stored.creator, code=stored.code)
        else:  # from the latest deal on (the state before it, then the events since)
            state = saved_state.load(stored.saved)
        for event_row in stored.events:
            if event_row.seq <= state.seq:
                continue  # older than the stored state: only kept for reconnects
            event = EVENT_ADAPTER.validate_json(event_row.payload)
            deal = deals[event.game_id] if isinstance(event, EvDeal) else None
            reduce(state, Stored(event_row.seq, event_row.created_at, event, deal))
        recent = stored.events[-self.config.replay_limit :]
        return state, [(e.seq, e.created_at, e.payload) for e in recent]

    def rebuild(self, table_id: str) -> Table:
        """A stored table, rebuilt (not yet in the directory, not resumed)."""
        return self.build(table_id, self.replay(table_id))

    def build(self, table_id: str, rebuilt: Rebuilt | None) -> Table:
        """The table of what :meth:`replay` read (which may have run away from the event loop: a
        cluster node adopting a dead node's tables reads them in threads, and its own tables go on
        meanwhile); not yet in the directory, not resumed."""
        if rebuilt is None:
            raise LookupError(f"table {table_id!r} was never stored")
        table = self._with_recent(*rebuilt)
        self.outfit(table)
        return table

    def restore_all(self) -> None:
        """Rebuild every unfinished table; one whose events do not replay is quarantined alone."""
        for table_id in self.store.table_ids():
            try:
                table = self.rebuild(table_id)
            except Exception as error:
                self.quarantine(table_id, error)
                continue
            self.directory.add(table)
            table.resume()
        self.metrics.tables.set(len(self.directory.tables))
        logs.info(
            "tables restored", tables=len(self.directory.tables), quarantined=len(self.directory.quarantined)
        )

    def quarantine(self, table_id: str, error: Exception) -> None:
        """Keep a table whose stored events do not replay out of play — logged, counted in
        ``/metrics`` and reported by ``/healthz`` — so that every other table still starts. Its
        events stay in the store, untouched, for the operator to look at."""
        reason = type(error).__name__  # not its text: a validation error quotes the stored payload
        self.directory.quarantine(table_id, reason)
        self.metrics.quarantined.set(len(self.directory.quarantined))
        logs.warning("table quarantined: its stored events do not replay", table=table_id, reason=reason)

    def reload(self, broken: Table) -> None:
        """After a failed write: replace the table by one rebuilt from what was stored (read away
        from the event loop; meanwhile the closed table refuses requests), and go on (finishing a
        game whose end was not stored) — unless it failed again straight away."""
        broken.close()
        if self.directory.tables.get(broken.id) is not broken or self.drops(broken):
            return
        self.services.read(lambda: self.replay(broken.id), lambda rebuilt: self._reloaded(broken, rebuilt))

    def _reloaded(self, broken: Table, rebuilt: Rebuilt | BaseException | None) -> None:
        if self.directory.tables.get(broken.id) is not broken:  # dropped (or replaced) meanwhile
            return
        if isinstance(rebuilt, BaseException):
            logs.failure("could not reload the table", rebuilt, table=broken.id)
            return
        if rebuilt is None:  # its creation was never stored
            self.directory.remove(broken.id)
            return
        table = self._with_recent(*rebuilt)
        table.dealer, table.bots = broken.dealer, broken.bots
        table.adopt_subscribers(broken.take_subscribers())
        table.fresh = True
        self.directory.replace(broken, table)
        state = table.state
        for client in list(table.fanout.subscribers):
            client.send(table.fanout.snapshot(state, state.seat_of(client.account_id)))
        if not broken.fresh:
            table.carry_on()

    def _with_recent(self, state: TableModel, recent: list[Sent]) -> Table:
        table = self.new(state)
        table.fanout.recent.extend(recent)
        return table
