"""The hub's own database reads (quick play's player card, rebuilding a table after a failed write) run
away from the event loop (``Services.read``): what happens while they are under way, and the reader
that runs them on the loop's thread pool."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server_harness import run_async
from table_harness import Rig, client, rig, seated_table, weakest

from niugui.server.hub import executor_reader
from niugui.server.protocol import EvGameOver, LeaveQueue, QuickPlay
from niugui.server.tables import Answer, Fault


class Deferred:
    """A reader that keeps each read until the test runs it (as a thread would, later)."""

    def __init__(self) -> None:
        self.pending: list[tuple[Callable[[], Any], Callable[[Any], None]]] = []

    def __call__(self, read: Callable[[], Any], then: Callable[[Any], None], /) -> None:
        self.pending.append((read, then))

    def run(self) -> None:
        work, self.pending = self.pending, []
        for read, then in work:
            try:
                result = read()
            except Exception as error:
                then(error)
            else:
                then(result)


def deferred_rig(tmp_path: Path) -> tuple[Rig, Deferred]:
    r = rig(tmp_path)
    reads = Deferred()
    r.hub.services.read = reads
    return r, reads


def test_quick_play_joins_once_the_card_is_read(tmp_path: Path) -> None:
    r, reads = deferred_rig(tmp_path)
    c = client(0)
    r.hub.connect(c)
    answers: list[Answer | BaseException] = []
    r.hub.handle(c, QuickPlay(type="quick_play", id="q"), answers.append)
    assert answers == [] and c.account_id not in r.hub.quick.matchmaker.queue  # nothing decided yet
    reads.run()
    assert len(answers) == 1 and isinstance(answers[0], Answer)
    assert c.account_id in r.hub.quick.matchmaker.queue and r.hub.directory.card(c.account_id) is not None


def test_leaving_quick_play_while_the_card_is_read_means_never_joining(tmp_path: Path) -> None:
    r, reads = deferred_rig(tmp_path)
    c = client(0)
    r.hub.connect(c)
    joined: list[Answer | BaseException] = []
    left: list[Answer | BaseException] = []
    r.hub.handle(c, QuickPlay(type="quick_play", id="q"), joined.append)
    r.hub.handle(c, LeaveQueue(type="leave_queue", id="l"), left.append)
    reads.run()
    assert isinstance(left[0], Answer)
    assert isinstance(joined[0], Fault) and joined[0].code == "bad_state"
    assert c.account_id not in r.hub.quick.matchmaker.queue


def test_pressing_quick_play_twice_while_the_card_is_read_joins_once(tmp_path: Path) -> None:
    r, reads = deferred_rig(tmp_path)
    c = client(0)
    r.hub.connect(c)
    answers: list[Answer | BaseException] = []
    r.hub.handle(c, QuickPlay(type="quick_play", id="q1"), answers.append)
    r.hub.handle(c, QuickPlay(type="quick_play", id="q2", turn_seconds=30), answers.append)
    reads.run()
    assert len(answers) == 2 and all(isinstance(a, Answer) for a in answers)
    assert r.hub.quick.matchmaker.queue.tickets[c.account_id].preferences.turn_seconds == 30  # the later


def test_disconnecting_while_the_card_is_read_means_never_joining(tmp_path: Path) -> None:
    r, reads = deferred_rig(tmp_path)
    c = client(0)
    r.hub.connect(c)
    joined: list[Answer | BaseException] = []
    r.hub.handle(c, QuickPlay(type="quick_play", id="q"), joined.append)
    r.hub.disconnect(c)
    reads.run()
    assert isinstance(joined[0], Fault) and c.account_id not in r.hub.quick.matchmaker.queue


def test_a_failed_write_reloads_the_table_once_its_events_are_read(tmp_path: Path) -> None:
    """Meanwhile the broken table refuses requests; then the rebuilt one takes its place, its
    players get a snapshot, and the game whose end was not stored is finished (R31)."""
    r, reads = deferred_rig(tmp_path)
    table, clients = seated_table(r)
    real = r.store.write
    failed: list[int] = []

    def failing(writes: Any) -> None:
        if not failed and any(isinstance(w.event, EvGameOver) for w in writes):
            failed.append(1)
            raise OSError("disk full")
        real(writes)

    r.store.write = failing  # type: ignore[method-assign]
    while not failed:
        game = table.state.game
        assert game is not None and game.to_move is not None
        try:
            r.call(table.act, clients[game.to_move], weakest(game.view(game.to_move)))
        except Fault as fault:
            assert fault.code == "server_error"
    assert table.closed and r.hub.tables[table.id] is table  # not replaced before the read is done
    refused: list[Answer | BaseException] = []
    table.ready(clients[0], refused.append)
    assert isinstance(refused[0], Fault) and refused[0].code == "server_error"
    snapshots = len(clients[0].frames)
    reads.run()
    reloaded = r.hub.tables[table.id]
    assert reloaded is not table and reloaded.state.status == "between"
    assert len(clients[0].frames) > snapshots and clients[0].messages[snapshots]["type"] == "snapshot"


def test_the_executor_reader_reads_in_a_thread_and_answers_on_the_loop() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        read = executor_reader(loop)
        where: dict[str, int] = {}
        results: list[object] = []
        done = asyncio.Event()

        def job() -> int:
            where["read"] = threading.get_ident()
            return 42

        def then(result: object) -> None:
            where["then"] = threading.get_ident()
            results.append(result)
            if len(results) == 2:
                done.set()

        def broken() -> int:
            raise OSError("database gone")

        read(job, then)
        read(broken, then)
        await asyncio.wait_for(done.wait(), 30)
        assert where["then"] == threading.get_ident() != where["read"]
        assert 42 in results and any(isinstance(x, OSError) for x in results)

    run_async(scenario())
