"""Swiss rounds on the server (issue 30): the node that starts a Swiss event runs it on the event
loop — each round paired (:mod:`.swiss_progress`), its tables opened as ordinary private tables of the
event with the people present seated and subscribed (each told by an ``event_seated`` message), bots
in the other seats (托管 for an absentee, R35 never applies to them: they are not seated), and the
next round begun once the last table of the round has ended. The progress is stored after each
change (:mod:`.swiss_store`), so any node shows the standings.

Who is present is who has a connection to this server at the round's start — on a cluster, to
any node (the hooks below, set by :mod:`niugui.server.cluster.swiss`): the node that runs an event
holds its lease, those seated who are connected to other nodes are told there.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .. import logs
from ..creation import TableFactory, short_id
from ..directory import Directory
from ..protocol import EventSeated, TableSettings
from ..store import Store
from ..tables import Answer, Client, Services, TableModel, no_reply
from .base import creator_of
from .store import EventRow, EventStore
from .swiss import swiss_settings
from .swiss_progress import SwissProgress, TablePlan
from .swiss_store import SwissStore

POLL_SECONDS = 2.0
"""How often a server looks for Swiss events whose start has come."""
RESUME_SECONDS = 30.0
"""A restarted server that finds a round over begins the next one after this long, so that the
entrants can reconnect first (who is not connected then is absent)."""


GameDone = tuple[list[int], list[int]]
"""A game's result as stored: its finish and scores."""


@dataclass(frozen=True)
class StoredSwiss:
    """A Swiss event in progress as read back from the store: its current round's unfinished tables
    → their games so far and whether the table has ended (its ``table_finished`` stored)."""

    event: EventRow
    progress: SwissProgress
    tables: dict[str, tuple[list[GameDone], bool]]


@dataclass
class _Running:
    event: EventRow
    progress: SwissProgress
    saving: bool = False
    dirty: bool = False


class SwissRounds:
    """The Swiss events this server runs (the hub's part)."""

    def __init__(
        self,
        store: Store,
        directory: Directory,
        factory: TableFactory,
        services: Services,
        turn_seconds: float,
    ) -> None:
        self.store, self.directory, self.factory, self.services = store, directory, factory, services
        self.turn_seconds = turn_seconds
        self.running: dict[str, _Running] = {}
        self.online: Callable[[list[str]], Awaitable[set[str]]] | None = None
        """On a cluster: which of these accounts are connected to any node (presence)."""
        self.lease: Callable[[str], Awaitable[bool]] | None = None
        """On a cluster: take the event's lease before claiming it (False: another node runs it)."""
        self.seated_elsewhere: Callable[[str, int, str, dict[str, int]], None] | None = None
        """On a cluster: (event, round, table, account → seat) told to the nodes where they are."""
        self.watch_elsewhere: Callable[[str, Client], None] | None = None
        """On a cluster: follow a round's table at the node that holds it (after a takeover)."""
        self._tasks: set[asyncio.Task[None]] = set()

    # ---- starting ----------------------------------------------------------------------------------

    def start(self, event_id: str, then: Callable[[bool | BaseException], None] = lambda _: None) -> None:
        """Close the registration and begin round 1, once (``then(False)`` when it had begun already)."""
        now = self.services.now()

        def claim() -> tuple[EventRow, list[tuple[str, str]]] | None:
            swiss = SwissStore(self.store.engine)
            event = EventStore(self.store.engine).event(event_id)
            if event is None or not swiss.claim(event_id, now):
                return None
            return event, swiss.entrants(event_id)

        def claimed(outcome: tuple[EventRow, list[tuple[str, str]]] | BaseException | None) -> None:
            if isinstance(outcome, BaseException) or outcome is None:
                then(outcome if outcome is not None else False)
                return
            event, entrants = outcome
            progress = SwissProgress(swiss_settings(event))
            for account_id, nickname in entrants:
                progress.register(account_id, nickname)
            self.running[event_id] = _Running(event, progress)
            logs.info("swiss started", event=event_id, entrants=len(entrants))
            self._begin_round(event_id)
            then(True)

        if self.lease is None:
            self.services.read(claim, claimed)
            return
        leased = self.lease

        async def first_lease() -> None:
            try:
                held = await leased(event_id)
            except Exception as error:
                then(error)
                return
            if held:
                self.services.read(claim, claimed)
            else:
                then(False)

        self._spawn(first_lease())

    def _spawn(self, work: Awaitable[None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def resume(self) -> None:
        """At the start, before any request (reads the store on the loop, as the clubs' roster):
        carry on the Swiss events this server was running. Each unfinished table of the current
        round has its games read back from its stored events and is watched again (or, if it is
        not in play any more, is over); a round found over begins the next after
        :data:`RESUME_SECONDS`."""
        swiss = SwissStore(self.store.engine)
        for event_id in swiss.running():
            self.resume_one(event_id)

    def resume_one(self, event_id: str) -> bool:
        """Carry on one Swiss event from its stored progress (reads the store on the loop: a start's
        resume; a cluster's takeover reads with :meth:`load` in a thread, then :meth:`carry_on`);
        False when it is not in progress."""
        loaded = self.load(event_id)
        if loaded is not None:
            self.carry_on(loaded)
        return loaded is not None

    def load(self, event_id: str) -> StoredSwiss | None:
        """An event in progress as the store has it, with its current round's tables' games (reads the
        store, any thread); None when it is not in progress."""
        swiss, events = SwissStore(self.store.engine), EventStore(self.store.engine)
        event, found = events.event(event_id), swiss.progress(event_id)
        if event is None or found is None or found[0] != "running":
            return None
        if found[1]:
            progress = SwissProgress.from_json(found[1], swiss_settings(event))
        else:  # claimed, but stopped before round 1 was stored: round 1 begins after the wait
            progress = SwissProgress(swiss_settings(event))
            for account_id, nickname in swiss.entrants(event_id):
                progress.register(account_id, nickname)
            progress.phase = "running"
        tables: dict[str, tuple[list[GameDone], bool]] = {}
        for plan in progress.plans[-1] if progress.plans else ():
            if plan.table_id is not None and not plan.done:
                stored = self.store.events(plan.table_id)
                results = [json.loads(e.payload)["result"] for e in stored if e.kind == "game_over"]
                ended = any(e.kind == "table_finished" for e in stored)
                tables[plan.table_id] = ([(r["finish"], r["scores"]) for r in results], ended)
        return StoredSwiss(event, progress, tables)

    def carry_on(self, loaded: StoredSwiss) -> None:
        """Run a loaded event here from now on (on the loop)."""
        event_id, progress = loaded.event.id, loaded.progress
        self.running[event_id] = _Running(loaded.event, progress)
        over = all(p.done for p in progress.plans[-1]) if progress.plans else True
        for index, plan in enumerate(progress.plans[-1] if progress.plans else ()):
            if not plan.done:
                over = self._resume_table(loaded, index, plan) or over
        self._save(event_id)
        if over and progress.phase != "finished":
            asyncio.get_running_loop().call_later(RESUME_SECONDS, self._begin_round, event_id)
        logs.info("swiss resumed", event=event_id, round=len(progress.rounds), phase=progress.phase)

    def _resume_table(self, loaded: StoredSwiss, index: int, plan: TablePlan) -> bool:
        """One table of a resumed round; True when the round is over with it."""
        progress = loaded.progress
        if plan.table_id is None:  # not played (its id is stored before the table is made)
            return progress.mark_done(index)
        games, ended = loaded.tables[plan.table_id]
        progress.set_games(index, games)
        if ended:
            return progress.mark_done(index)
        table = self.directory.tables.get(plan.table_id)
        watcher = _Watcher(self, loaded.event.id, plan.table_id)
        if table is None and self.watch_elsewhere is not None:  # a cluster: another node's table
            self.watch_elsewhere(plan.table_id, watcher)
            return False
        if table is None or table.state.status == "finished":
            return progress.mark_done(index)
        table.subscribe(watcher, None)
        return False

    async def follow(self, seconds: float = POLL_SECONDS) -> None:
        """Start each Swiss event whose ``starts_at`` has come (cancelled at shutdown)."""
        swiss = SwissStore(self.store.engine)
        while True:
            await asyncio.sleep(seconds)
            try:
                for event_id in await asyncio.to_thread(swiss.due, time.time()):
                    self.start(event_id)
            except Exception:
                logs.exception("looking for Swiss events to start failed; trying again later")

    # ---- rounds ----------------------------------------------------------------------------------------

    def _begin_round(self, event_id: str) -> None:
        """Pair the next round, those connected now present, in the thread pool (the search for the
        fewest repeats may take a moment: docs/protocol.md 6e); then open its tables."""
        run = self.running.get(event_id)
        if run is None:  # not run here any more (on a cluster: its lease was lost)
            return
        progress = run.progress
        present = {a for a in progress.entrants if self.directory.connections(a)}
        if self.online is not None:
            online = self.online

            async def everywhere() -> None:
                try:
                    found = await online(list(progress.entrants))
                except Exception as error:  # Redis away: those connected here
                    logs.warning("swiss: the cluster's presence was not read", error=type(error).__name__)
                    found = set()
                self._pair(event_id, present | found)

            self._spawn(everywhere())
            return
        self._pair(event_id, present)

    def _pair(self, event_id: str, present: set[str]) -> None:
        run = self.running.get(event_id)
        if run is None:
            return
        progress = run.progress

        def paired(outcome: list[TablePlan] | BaseException) -> None:
            if isinstance(outcome, BaseException):
                logs.failure("swiss: the round could not be paired", outcome, event=event_id)
                return
            self._seat_round(event_id, outcome)

        self.services.read(lambda: progress.begin_round(present), paired)

    def _seat_round(self, event_id: str, plans: list[TablePlan]) -> None:
        run = self.running.get(event_id)
        if run is None:
            return
        progress = run.progress
        logs.info("swiss round", event=event_id, round=len(progress.rounds), tables=len(plans))
        if progress.phase == "finished":
            self._save(event_id)
            self._end(event_id)
            return
        over, opening = False, []
        for index, plan in enumerate(plans):
            if all(p is None or p in progress.rounds[-1].absent for p in plan.seats):
                over = progress.mark_done(index)  # nobody here to play it
            else:
                progress.attach(index, short_id(8))
                opening.append(index)
        self._save(event_id)  # the tables' ids are stored before the tables: a restart finds them
        for index in opening:
            self._open(run, progress.plans[-1][index])
        if over:
            self._round_over(event_id)

    def _open(self, run: _Running, plan: TablePlan) -> None:
        event, progress = run.event, run.progress
        number = len(progress.rounds)
        settings = TableSettings(
            name=f"{event.name} · {number}",
            private=True,
            turn_seconds=self.turn_seconds,
            bot_level=progress.settings.bot_level,
            games=progress.settings.games,
        )
        table_id = plan.table_id
        assert table_id is not None
        table = self.factory.open(
            TableModel(table_id, creator=creator_of(event.id), code=short_id(6), settings=settings)
        )
        absent = progress.rounds[-1].absent
        people = [p for p in plan.seats if p is not None and p not in absent]

        def seated(answer: Answer | BaseException) -> None:
            if isinstance(answer, BaseException):
                logs.failure("swiss: could not seat a table", answer, event=event.id, table=table_id)
                return
            for seat, account in enumerate(people):
                notice = EventSeated(
                    type="event_seated", event=event.id, round=number, table=table_id, seat=seat
                )
                for client in list(self.directory.connections(account)):
                    client.send(notice.model_dump_json())
            if self.seated_elsewhere is not None:
                self.seated_elsewhere(event.id, number, table_id, {a: n for n, a in enumerate(people)})

        def created(answer: Answer | BaseException) -> None:
            if isinstance(answer, BaseException):
                logs.failure("swiss: could not create a table", answer, event=event.id, table=table_id)
                return
            table.subscribe(_Watcher(self, event.id, table_id), None)
            for account in people:
                for client in list(self.directory.connections(account)):
                    self.directory.follow(client, table_id)
                    table.subscribe(client, None)
            group = [(a, progress.nicknames[a], self.directory.card(a)) for a in people]
            table.seat_group(group, progress.settings.bot_level, seated)

        table.create(settings, created)

    def game_over(self, event_id: str, table_id: str, finish: list[int], scores: list[int]) -> None:
        run = self.running.get(event_id)
        if run is not None:
            run.progress.game_over(table_id, finish, scores)
            self._save(event_id)

    def table_finished(self, event_id: str, table_id: str) -> None:
        run = self.running.get(event_id)
        if run is None or run.progress.table_index(table_id) is None:
            return
        if run.progress.table_done(table_id):
            self._round_over(event_id)
        else:
            self._save(event_id)

    def seat_left(self, watcher: _Watcher, table_id: str) -> None:
        """Someone left a round's table (escaped, R35, or not ready in time): between games a bot
        takes the seat, so that the round's games go on (its places count for the seat's entrant,
        as under 托管); if nobody is left the table ends by itself."""
        table = self.directory.tables.get(table_id)
        if table is not None and table.state.status in ("waiting", "between"):
            table.fill_bots(watcher, no_reply)

    def _round_over(self, event_id: str) -> None:
        progress = self.running[event_id].progress
        if progress.phase == "finished":
            self._save(event_id)
            self._end(event_id)
        else:
            self._begin_round(event_id)

    def _end(self, event_id: str) -> None:
        logs.info("swiss finished", event=event_id, rounds=len(self.running[event_id].progress.rounds))

    # ---- storing ---------------------------------------------------------------------------------------

    def _save(self, event_id: str) -> None:
        """Store the progress; one write at a time per event, the latest progress last."""
        run = self.running.get(event_id)
        if run is None:
            return
        if run.saving:
            run.dirty = True
            return
        run.saving, run.dirty = True, False
        phase, data = run.progress.phase, run.progress.to_json()
        swiss = SwissStore(self.store.engine)
        now = self.services.now()

        def saved(outcome: BaseException | None) -> None:
            run.saving = False
            if isinstance(outcome, BaseException):
                logs.failure("swiss: the progress was not stored", outcome, event=event_id)
            if self.running.get(event_id) is not run:
                return  # not run here any more
            if run.dirty:
                self._save(event_id)
            elif phase == "finished":
                self.running.pop(event_id, None)

        self.services.read(lambda: swiss.save(event_id, phase, data, now), saved)


class _Watcher:
    """A round table's listener: subscribed like a spectator (seatless), it reads the ends of games
    and of the table, and seats left, from the events it is sent, and tells the rounds on the next
    turn of the loop. It is the table's creator (``event:<id>``), so it may fill seats with bots."""

    def __init__(self, rounds: SwissRounds, event_id: str, table_id: str) -> None:
        self.account_id, self.nickname = creator_of(event_id), ""
        self.address = ""  # the server's own listener: no one's address (issue 33's distinct people)
        self.rounds, self.event_id, self.table_id = rounds, event_id, table_id

    def send(self, message: str) -> None:
        if not message.startswith('{"type":"event"'):
            return
        event, table = self.event_id, self.table_id
        if '"kind":"game_over"' in message:
            result = json.loads(message)["event"]["result"]
            self._later(lambda: self.rounds.game_over(event, table, result["finish"], result["scores"]))
        elif '"kind":"table_finished"' in message:
            self._later(lambda: self.rounds.table_finished(event, table))
        elif '"kind":"seat_left"' in message:
            self._later(lambda: self.rounds.seat_left(self, table))

    @staticmethod
    def _later(job: Callable[[], None]) -> None:
        asyncio.get_running_loop().call_soon(job)
