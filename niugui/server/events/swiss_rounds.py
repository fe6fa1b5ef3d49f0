"""Swiss rounds on the server (issue 30): the node that starts a Swiss event runs it on the event
loop — each round paired (:mod:`.swiss_progress`), its tables opened as ordinary private tables of the
event with the people present seated and subscribed (each told by an ``event_seated`` message), bots
in the other seats (托管 for an absentee, R35 never applies to them: they are not seated), and the
next round begun once the last table of the round has ended. The progress is stored after each
change (:mod:`.swiss_store`), so any node shows the standings.

Who is present is who has a connection to this server at the round's start.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from .. import logs
from ..creation import TableFactory, short_id
from ..directory import Directory
from ..protocol import EventSeated, TableSettings
from ..store import Store
from ..tables import Answer, Services, Table, TableModel
from .base import creator_of
from .store import EventRow, EventStore
from .swiss import swiss_settings
from .swiss_progress import SwissProgress, TablePlan
from .swiss_store import SwissStore

POLL_SECONDS = 2.0
"""How often a server looks for Swiss events whose start has come."""


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

        self.services.read(claim, claimed)

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
        run = self.running[event_id]
        progress = run.progress
        present = {a for a in progress.entrants if self.directory.connections(a)}
        plans = progress.begin_round(present)
        logs.info("swiss round", event=event_id, round=len(progress.rounds), tables=len(plans))
        self._save(event_id)
        if progress.phase == "finished":
            self._end(event_id)
            return
        over = False
        for index, plan in enumerate(plans):
            if all(p is None or p in progress.rounds[-1].absent for p in plan.seats):
                over = progress.table_done_without_play(index)  # nobody here to play it
            else:
                self._open(run, index, plan)
        if over:
            self._round_over(event_id)

    def _open(self, run: _Running, index: int, plan: TablePlan) -> None:
        event, progress = run.event, run.progress
        number = len(progress.rounds)
        settings = TableSettings(
            name=f"{event.name} · {number}",
            private=True,
            turn_seconds=self.turn_seconds,
            bot_level=progress.settings.bot_level,
            games=progress.settings.games,
        )
        table_id = short_id(8)
        table = self.factory.open(
            TableModel(table_id, creator=creator_of(event.id), code=short_id(6), settings=settings)
        )
        progress.attach(index, table_id)
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

        def created(answer: Answer | BaseException) -> None:
            if isinstance(answer, BaseException):
                logs.failure("swiss: could not create a table", answer, event=event.id, table=table_id)
                return
            table.subscribe(_Watcher(self, event.id, table), None)
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
        run = self.running[event_id]
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
            if run.dirty:
                self._save(event_id)
            elif phase == "finished":
                self.running.pop(event_id, None)

        self.services.read(lambda: swiss.save(event_id, phase, data, now), saved)


class _Watcher:
    """A round table's listener: subscribed like a spectator (seatless), it reads the ends of games
    and of the table from the events it is sent, and tells the rounds on the next turn of the loop."""

    def __init__(self, rounds: SwissRounds, event_id: str, table: Table) -> None:
        self.account_id, self.nickname = creator_of(event_id), ""
        self.rounds, self.event_id, self.table = rounds, event_id, table

    def send(self, message: str) -> None:
        if not message.startswith('{"type":"event"'):
            return
        if '"kind":"game_over"' in message:
            result = json.loads(message)["event"]["result"]
            self._later(
                lambda: self.rounds.game_over(
                    self.event_id, self.table.id, result["finish"], result["scores"]
                )
            )
        elif '"kind":"table_finished"' in message:
            self._later(lambda: self.rounds.table_finished(self.event_id, self.table.id))

    @staticmethod
    def _later(job: Callable[[], None]) -> None:
        asyncio.get_running_loop().call_soon(job)
