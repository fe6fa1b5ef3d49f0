"""A live table in-process (no sockets, no event loop: time, timers and bots are the test's): replay
from the store, rebuilding from events, 托管 toggles, and a failed write."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
from table_harness import FakeClient, client, play_out, rig, seated_table, weakest

from niugui.server.protocol import EvGameOver, TableSettings
from niugui.server.tables import Fault


def test_a_reconnect_beyond_the_memory_window_is_replayed_from_the_store(tmp_path: Path) -> None:
    r = rig(tmp_path, replay_limit=8)
    table, _ = seated_table(r)
    play_out(r, table, [client(n) for n in range(4)])
    assert len(table.fanout.recent) == 8 and table.state.seq > 40
    late = client(0)  # the same account, a new connection that saw up to seq 3
    r.call(table.subscribe, late, 3)
    replayed = [m for m in late.messages if m["type"] == "event"]
    assert [m["seq"] for m in replayed] == list(range(4, table.state.seq + 1))
    assert all(m["replay"] for m in replayed) and replayed[-1]["view"]["seat"] == 0
    assert all(m["view"] is None for m in replayed[:-1])


def test_the_replay_buffer_is_out_of_the_garbage_collectors_sight(tmp_path: Path) -> None:
    """A busy server keeps tens of thousands of sent events for reconnects; kept as plain tuples of
    numbers and text, a collection stops tracking them, so they add nothing to its pauses."""
    r = rig(tmp_path, replay_limit=8)
    table, clients = seated_table(r)
    play_out(r, table, clients)
    gc.collect()
    assert len(table.fanout.recent) == 8
    assert not any(gc.is_tracked(sent) for sent in table.fanout.recent)


def test_rebuilding_from_stored_events_gives_the_same_table(tmp_path: Path) -> None:
    r = rig(tmp_path)
    table, clients = seated_table(r)
    play_out(r, table, clients)
    live = table.state
    rebuilt = r.hub.loader.rebuild(table.id).state
    assert rebuilt.seq == live.seq and rebuilt.status == live.status == "between"
    assert rebuilt.series.totals == live.series.totals and rebuilt.game is not None and live.game is not None
    assert rebuilt.game.to_record() == live.game.to_record()
    assert rebuilt.deal == live.deal
    snapshot = table.fanout.snapshot
    for seat in (0, 1, 2, 3, None):
        assert snapshot(rebuilt, seat) == snapshot(live, seat)


def test_toggling_autoplay_off_turn_does_not_hold_up_a_bot(tmp_path: Path) -> None:
    """A seated player flipping 托管 on and off while a bot is to move must not re-arm the bot's
    timer (or discard its answer): the bot still plays within its delay."""
    r = rig(tmp_path, bot_delay=0.3)
    table, (human,) = seated_table(r, humans=1)
    game = table.state.game
    assert game is not None
    while game.to_move == 0:
        r.call(table.act, human, weakest(game.view(0)))
    before = len(game.action_log())
    on = True
    for _ in range(20):  # 2 s of toggling, every 0.1 s: far longer than the bot's 0.3 s delay
        r.call(table.set_autoplay, human, on)
        on = not on
        r.clock.advance(0.1)
        if len(game.action_log()) > before:
            break
    assert len(game.action_log()) > before, "the bot never moved while 托管 was toggled"


def test_toggling_autoplay_on_your_turn_does_not_restart_your_timer(tmp_path: Path) -> None:
    """托管 on then off on your own turn gives the turn back with the deadline it had, not a fresh one."""
    r = rig(tmp_path, bot_delay=5)
    table, clients = seated_table(r)
    state = table.state
    assert state.game is not None and state.game.to_move is not None
    mover = clients[state.game.to_move]
    deadline = state.deadline
    assert deadline is not None
    r.clock.advance(0.05)
    r.call(table.set_autoplay, mover, True)
    assert state.deadline is None
    r.call(table.set_autoplay, mover, False)
    assert state.deadline == deadline
    assert table.clock.armed is not None and table.clock.armed.at == deadline


def test_two_expired_timers_put_a_seat_in_autoplay_and_acting_ends_it(tmp_path: Path) -> None:
    r = rig(tmp_path)
    table, (human,) = seated_table(r, humans=1, turn_seconds=5)
    state = table.state
    game = state.game
    assert game is not None

    def wait_for_my_turn() -> None:
        while game.to_move != 0 and not game.over:
            assert r.clock.advance(r.config.bot_delay) > 0

    events: list[dict[str, Any]] = []
    for _ in range(2):
        wait_for_my_turn()
        before = len(human.frames)
        r.clock.advance(5)  # the timer runs out; the bot plays this turn for the seat
        events += [m["event"] for m in human.messages[before:]]
    mine = [e for e in events if e.get("seat") == 0]
    assert [e["by"] for e in mine if e["kind"] in ("play", "pass")] == ["timeout", "timeout"]
    assert {"kind": "autoplay", "seat": 0, "on": True, "reason": "timeout"} in mine
    assert state.seats[0].autoplay and state.seats[0].timeouts == 2
    wait_for_my_turn()
    if not game.over:
        r.call(table.act, human, weakest(game.view(0)))
        assert not state.seats[0].autoplay and state.seats[0].timeouts == 0


@pytest.mark.parametrize("store_stays_broken", [False, True])
def test_a_game_whose_end_was_not_stored_is_finished_on_reload(
    tmp_path: Path, store_stays_broken: bool
) -> None:
    """If storing ``game_over`` fails after the last play was stored, the reloaded table (the same path
    as a restart) must finish the game, not sit forever 'playing' a game that is over (R31); while the
    store keeps failing, reloading does not go on for ever."""
    r = rig(tmp_path)
    table, clients = seated_table(r)
    real = r.store.write
    failures: list[int] = []

    def failing(writes: Any) -> None:
        if any(isinstance(w.event, EvGameOver) for w in writes) and (not failures or store_stays_broken):
            failures.append(1)
            raise OSError("disk full")
        real(writes)

    r.store.write = failing  # type: ignore[method-assign]
    errors = []
    while not failures:
        game = table.state.game
        assert game is not None and game.to_move is not None
        try:
            r.call(table.act, clients[game.to_move], weakest(game.view(game.to_move)))
        except Exception as error:
            errors.append(error)
    assert [getattr(e, "code", None) for e in errors] == ["server_error"]
    reloaded = r.hub.tables[table.id]
    assert reloaded is not table and table.closed
    assert reloaded.state.game is not None and reloaded.state.game.over
    snapshots = [json.loads(f) for f in clients[0].frames if f.startswith('{"type":"snapshot"')]
    assert snapshots[-1]["seq"] == reloaded.state.seq or not store_stays_broken
    if store_stays_broken:
        assert reloaded.state.status == "playing"  # finished on the next reload or restart
        assert len(failures) == 2
    else:
        assert reloaded.state.status == "between" and reloaded.state.series.games == 1


def test_no_action_is_checked_on_a_copy_of_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 8: commands judge with check_play/check_pass; nothing applies an action to a copy."""
    from niugui.game import Game

    def no_copies(self: Game) -> Game:
        raise AssertionError("the server copied a game")

    monkeypatch.setattr(Game, "copy", no_copies)
    r = rig(tmp_path)
    table, clients = seated_table(r, humans=2)
    play_out(r, table, clients)
    assert table.state.status == "between" and table.state.series.games == 1


def test_between_games_a_seat_not_ready_in_time_is_freed(tmp_path: Path) -> None:
    """Issue 15, finding 13: a seated player who never sends ``ready`` cannot hold a table for ever.
    After ``ready_seconds`` from the game's end every human seat not ready is freed (``seat_left``,
    reason ``not_ready`` — not an escape: no game is in progress, scores stay); ready seats stay."""
    r = rig(tmp_path, ready_seconds=30.0)
    table, clients = seated_table(r, humans=2)
    play_out(r, table, clients)
    assert table.state.status == "between"
    totals = list(table.state.series.totals)
    r.call(table.ready, clients[0])
    r.clock.advance(29.0)
    assert table.state.seats[1].player is not None  # not yet
    r.clock.advance(1.5)
    assert table.state.seats[1].player is None and table.state.seats[0].player is not None
    events = [m["event"] for m in clients[0].messages if m["type"] == "event"]
    freed = [e for e in events if e["kind"] == "seat_left"]
    assert freed == [{"kind": "seat_left", "seat": 1, "reason": "not_ready"}]
    assert table.state.series.totals == totals and table.state.status == "between"
    newcomer = client(9)
    r.hub.directory.follow(newcomer, table.id)
    r.call(table.sit, newcomer, 1)  # the freed seat is free for someone else, and the game goes on
    assert table.state.status == "playing"


def test_getting_ready_in_time_keeps_the_seat_and_a_restart_keeps_the_remaining_time(tmp_path: Path) -> None:
    r = rig(tmp_path, ready_seconds=30.0)
    table, clients = seated_table(r, humans=2)
    play_out(r, table, clients)
    r.clock.advance(20.0)
    rebuilt = r.hub.loader.rebuild(table.id).state  # a restart: the deadline comes from the stored game end
    assert rebuilt.between_since == table.state.between_since
    r.call(table.ready, clients[0])
    r.call(table.ready, clients[1])
    assert table.state.status == "playing"
    r.clock.advance(31.0)  # past the old ready deadline (the game waits on a human's 60 s turn by then)
    assert all(slot.player is not None for slot in table.state.seats)
    assert not [m for m in clients[0].messages if m["type"] == "event" and m["event"]["kind"] == "seat_left"]


def test_R27_a_timeout_plays_the_least_a_pass_or_the_weakest_single_not_spade_3_or_2(tmp_path: Path) -> None:
    """Issue 10: a first timeout never spends strong cards for the player. Every timed-out turn of a
    whole game is a pass when passing was allowed (R27), else the weakest single that is not ♠3/♠2."""
    from niugui.cards import Card

    r = rig(tmp_path)
    table, (human,) = seated_table(r, humans=1, turn_seconds=5)
    game = table.state.game
    assert game is not None
    checked = 0
    while not game.over:
        if game.to_move != 0:
            assert r.clock.advance(r.config.bot_delay) > 0
            continue
        view = game.view(0)
        r.call(table.set_autoplay, human, False)  # a fresh first timeout each turn, never 托管
        before = len(human.frames)
        r.clock.advance(5)
        mine = [m["event"] for m in human.messages[before:] if m["event"].get("seat") == 0]
        acted = [e for e in mine if e["kind"] in ("play", "pass")]
        assert acted and acted[0]["by"] == "timeout"
        if view["can_pass"]:
            assert acted[0]["kind"] == "pass"
        else:
            singles = [p[0] for p in view["legal_plays"] if len(p) == 1]
            spare = [c for c in singles if c not in ("S3", "S2")] or singles
            if spare:
                assert acted[0]["play"] == [min(spare, key=lambda c: int(Card.parse(c)))]
                assert len(singles) == len(spare) or acted[0]["play"][0] not in ("S3", "S2")
            else:
                assert acted[0]["play"] == view["legal_plays"][0]
        checked += 1
    assert checked >= 3


def test_R35_a_table_whose_humans_all_left_ends_and_leaves_the_lobby(tmp_path: Path) -> None:
    """Issue 10: the last human escapes (R35) and the game ends; with only bots left the table
    finishes at once instead of lingering in the lobby as "3/4" with three bots."""
    r = rig(tmp_path)
    table, (human,) = seated_table(r, humans=1)
    assert table.state.status == "playing" and table.id in [t.id for t in r.hub.lobby()]
    r.call(table.leave, human)
    assert table.state.status == "finished"
    assert table.id not in [t.id for t in r.hub.lobby()]
    kinds = [m["event"]["kind"] for m in human.messages if m.get("type") == "event"]
    assert kinds[-1] == "table_finished" and "escape" in kinds


def test_a_new_table_with_no_one_seated_yet_does_not_end(tmp_path: Path) -> None:
    """Only bots with no human make a table abandoned: an empty new table waits for players."""
    r = rig(tmp_path)
    creator = client(0)
    table = r.hub.create_table(creator, TableSettings(turn_seconds=60), lambda a: None)
    r.hub.directory.follow(creator, table.id)
    r.call(table.sit, creator, 0)
    r.call(table.stand, creator)
    assert table.state.status == "waiting"


def test_the_creator_frees_the_seat_of_an_absent_player_between_games(tmp_path: Path) -> None:
    """Issue 15, finding 13: the creator need not wait for the ready timeout to free the seat of a
    player who went away — between games only (during one, leaving is an escape, R35, and only the
    player's own choice), only a human's seat, and only while that player is absent (not connected,
    not ready). ``seat_left`` with reason ``freed``; the scores stay."""
    r = rig(tmp_path, ready_seconds=600.0)
    table, clients = seated_table(r, humans=2)

    def refused(who: FakeClient, seat: int) -> str:
        with pytest.raises(Fault) as fault:
            r.call(table.free_seat, who, seat)
        return fault.value.code

    assert refused(clients[0], 1) == "bad_state"  # a game is in progress
    play_out(r, table, clients)
    assert table.state.status == "between"
    totals = list(table.state.series.totals)
    assert refused(clients[0], 1) == "bad_state"  # still connected: here, just not ready yet
    r.hub.disconnect(clients[1])
    assert not table.state.seats[1].online
    assert refused(clients[1], 0) == "forbidden"  # not the creator
    assert refused(clients[0], 0) == "bad_state"  # the creator's own seat: stand up instead
    assert refused(clients[0], 2) == "bad_state"  # a bot's seat
    r.call(table.free_seat, clients[0], 1)
    assert table.state.seats[1].player is None
    events = [m["event"] for m in clients[0].messages if m["type"] == "event"]
    assert events[-1] == {"kind": "seat_left", "seat": 1, "reason": "freed"}
    assert table.state.series.totals == totals and table.state.status == "between"
    rebuilt = r.hub.loader.rebuild(table.id).state  # the event replays after a restart
    assert rebuilt.seats[1].player is None


def test_a_restart_in_the_middle_of_a_seats_leaving_keeps_it(tmp_path: Path) -> None:
    """Issue 27: a seat that has gone out and stands up leaves when the game ends (``leaving``). That
    is an event now, so a restart (a new hub on the same database) still frees the seat at the end."""
    r = rig(tmp_path, seed=2)  # a deal that goes on after its first seat goes out
    table, clients = seated_table(r)
    state = table.state
    game = state.game
    assert game is not None
    while not any(game.count(seat) == 0 for seat in range(4)):
        assert game.to_move is not None
        r.call(table.act, clients[game.to_move], weakest(game.view(game.to_move)))
    gone = next(seat for seat in range(4) if game.count(seat) == 0)
    assert not game.over
    r.call(table.stand, clients[gone])
    assert state.leaving == {gone: "left"} and state.seats[gone].player is not None
    r.hub.close()

    again = rig(tmp_path, store=r.store)
    again.hub.restore()
    restored = again.hub.tables[table.id]
    assert restored.state.leaving == {gone: "left"} and restored.state.status == "playing"
    while restored.state.status == "playing":  # after a restart every seat is in 托管 until it is back
        assert again.clock.advance(again.config.bot_delay) > 0, "托管 armed no timer"
    assert restored.state.seats[gone].player is None and restored.state.leaving == {}
    events = [json.loads(stored.payload) for stored in again.store.events(table.id)]
    for kind in ("leaving", "seat_left"):
        assert [e for e in events if e["kind"] == kind] == [{"kind": kind, "seat": gone, "reason": "left"}]
    again.hub.close()
