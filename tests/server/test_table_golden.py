"""A golden event log of a whole table — three games, a quick chat, a disconnect and reconnect, 托管 after two
timeouts, an escape that ends the table — played in-process on a manual clock with a seeded dealer.

- The live run stores exactly the golden events and sends exactly the golden frames (digests).
- The golden events alone (no store, no event loop: ``reduce`` only) rebuild the identical state,
  and at every event the identical frame for each seat and for a spectator.
- No frame to a seat or to the spectator shows a card of another seat's hand before it is played.

Regenerate after an intended change of events or frames: ``NIUGUI_REGEN_GOLDEN=1 pytest <this file>``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from table_harness import FakeClient, Rig, rig, weakest
from test_server_games import assert_no_leak

from niugui import Game
from niugui.server import creation as creation_module
from niugui.server.protocol import (
    EVENT_ADAPTER,
    Chat,
    EvDeal,
    FillBots,
    Ready,
    Sit,
    Stand,
    StateJson,
    TableSettings,
    Watch,
)
from niugui.server.tables import Deal, FanOut, Stored, Table, TableModel, reduce
from niugui.server.tables.fanout import table_state

GOLDEN = Path(__file__).with_name("golden") / "table.json"
ACCOUNTS = {"a0": "seat 0", "a1": "seat 1", "a9": "spectator"}


def digest(frame: str) -> str:
    return hashlib.sha256(frame.encode()).hexdigest()[:20]


def play(
    r: Rig,
    table: Table,
    actors: dict[int, FakeClient],
    until: Callable[[], bool],
    idle: frozenset[int] = frozenset(),
) -> None:
    """Scripted humans act on their turns (those in ``idle`` let their timer run out); the clock moves
    to the next timer otherwise (bots, 托管, timeouts)."""
    for _ in range(2000):
        if until():
            return
        state = table.state
        game = state.game
        assert game is not None and game.to_move is not None, "the game ended before the scenario's point"
        seat = game.to_move
        if seat in actors and state.human_turn(seat) and seat not in idle:
            r.call(table.act, actors[seat], weakest(game.view(seat)))
        else:
            at = r.clock.next_at()
            assert at is not None, "nothing is armed and nobody may act"
            r.clock.advance(at - r.clock.time())
    raise AssertionError("the scenario did not get there")


def actions(table: Table) -> int:
    return 0 if table.state.game is None else len(table.state.game.action_log())


def scenario(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Rig, Table, dict[str, list[str]]]:
    monkeypatch.setattr(creation_module, "short_id", lambda n: "golden01"[:n])
    r = rig(tmp_path, seed=8, bot_delay=0.8, grace_seconds=300)
    c0, c1, c9 = FakeClient("a0", "阿丽"), FakeClient("a1", "bob"), FakeClient("a9", "观众")
    for c in (c0, c1, c9):
        r.hub.connect(c)
    created: list[Any] = []
    table = r.hub.create_table(c0, TableSettings(name="golden", turn_seconds=10, games=3), created.append)
    r.call(r.hub.handle, c9, Watch(type="watch", id="w", table=table.id))
    r.call(r.hub.handle, c0, Sit(type="sit", id="s0", table=table.id, seat=0))
    r.call(r.hub.handle, c1, Sit(type="sit", id="s1", table=table.id, seat=1))
    r.call(r.hub.handle, c0, FillBots(type="fill_bots", id="f", table=table.id))
    state = table.state
    actors = {0: c0, 1: c1}

    # Game 1: seat 1 drops out (托管 plays for it), then reconnects and is caught up by replay.
    play(r, table, actors, lambda: actions(table) >= 6)
    r.call(r.hub.handle, c0, Chat(type="chat", id="c", table=table.id, phrase="together"))  # quick chat
    seen = json.loads(c1.frames[-1])["seq"]
    r.hub.disconnect(c1)
    play(r, table, {0: c0}, lambda: actions(table) >= 16)
    c1 = FakeClient("a1", "bob")
    r.hub.connect(c1)
    r.call(r.hub.handle, c1, Watch(type="watch", id="w1", table=table.id, last_seq=seen))
    actors[1] = c1
    play(r, table, actors, lambda: state.status == "between")

    # Game 2: seat 0 lets its timer run out twice (托管 from the second), then acts again.
    r.call(r.hub.handle, c0, Ready(type="ready", id="r0", table=table.id))
    r.call(r.hub.handle, c1, Ready(type="ready", id="r1", table=table.id))
    assert state.game_no == 2
    play(
        r,
        table,
        actors,
        lambda: state.seats[0].timeouts >= 2 or state.status != "playing",
        idle=frozenset({0}),
    )
    play(
        r,
        table,
        actors,
        lambda: (state.game is not None and state.game.to_move == 0) or state.status != "playing",
    )
    game = state.game
    assert game is not None and state.seats[0].autoplay and game.to_move == 0
    r.call(table.act, c0, weakest(game.view(0)))  # acting ends 托管
    play(r, table, actors, lambda: state.status == "between")

    # Game 3: seat 1 stands up holding cards: an escape (R35), which also ends the table (games=3).
    r.call(r.hub.handle, c0, Ready(type="ready", id="r2", table=table.id))
    r.call(r.hub.handle, c1, Ready(type="ready", id="r3", table=table.id))
    play(r, table, actors, lambda: actions(table) >= 4 and state.game is not None and state.game.count(1) > 0)
    r.call(r.hub.handle, c1, Stand(type="stand", id="x", table=table.id))
    assert state.status == "finished"
    frames = {"a0": c0.frames, "a1": [*actors[1].frames], "a9": c9.frames}
    return r, table, frames


def live_log(r: Rig, table: Table) -> dict[str, Any]:
    deals = {
        str(g.id): {"game_no": g.game_no, "first_drawer": g.first_drawer, "deck": g.deck, "salt": g.salt,
                    "commitment": g.commitment, "meta": g.meta}
        for g in r.store.games_of(table.id)
    }  # fmt: skip
    events = [[e.seq, e.created_at, json.loads(e.payload)] for e in r.store.events(table.id)]
    return {"table": table.id, "creator": table.state.creator, "deals": deals, "events": events}


def rebuild(log: dict[str, Any]) -> tuple[TableModel, dict[tuple[int, str], str]]:
    """The golden events alone, through ``reduce``: the state, and each recipient's frame at each seq."""
    state = TableModel(log["table"], creator=log["creator"], code=None)
    fanout = FanOut(state.id, replay_limit=64, replay_max=500)
    for account in ACCOUNTS:
        fanout.subscribers[FakeClient(account, account)] = None
    deals = {
        int(k): Deal(v["game_no"], v["first_drawer"], tuple(v["deck"]), v["salt"], v["commitment"], v["meta"])
        for k, v in log["deals"].items()
    }
    frames: dict[tuple[int, str], str] = {}
    for seq, time, payload in log["events"]:
        event = EVENT_ADAPTER.validate_python(payload)
        reduce(state, Stored(seq, time, event, deals[event.game_id] if isinstance(event, EvDeal) else None))
        text = event.model_dump_json()
        for client, frame in fanout.event_frames(state, (seq, time, text)):
            frames[(seq, client.account_id)] = frame
        fresh = StateJson(table_state(state)).for_seat(None)  # the state kept serialized between turns
        assert json.loads(fanout.state_json(state).for_seat(None)) == json.loads(fresh), seq
    return state, frames


def test_the_live_table_stores_and_sends_exactly_the_golden_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r, table, frames = scenario(tmp_path, monkeypatch)
    log = live_log(r, table)
    log["frames"] = {account: [digest(f) for f in sent] for account, sent in frames.items()}
    if os.environ.get("NIUGUI_REGEN_GOLDEN"):
        GOLDEN.write_text(json.dumps(log, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    kinds = [e[2]["kind"] for e in golden["events"]]
    for kind in (
        "flip",
        "deal",
        "presence",
        "autoplay",
        "escape",
        "game_over",
        "seat_left",
        "table_finished",
        "chat",
    ):
        assert kind in kinds, kind
    assert kinds.count("game_over") == 3 and sum(k == "autoplay" for k in kinds) >= 4
    assert log["events"] == golden["events"], "the table's events differ from the golden log"
    assert log["deals"] == golden["deals"]
    assert log["frames"] == golden["frames"], "a frame differs from the golden log"
    assert any(json.loads(f).get("replay") for f in frames["a1"]), "the reconnect was caught up by replay"

    # The golden events alone rebuild the identical state and, at every event, the identical frames.
    rebuilt, rebuilt_frames = rebuild(golden)
    live = table.state
    assert (rebuilt.seq, rebuilt.status, rebuilt.series.totals) == (live.seq, live.status, live.series.totals)
    assert rebuilt.game is not None and live.game is not None
    assert rebuilt.game.to_record() == live.game.to_record()
    for seat in (0, 1, 2, 3, None):
        assert table.fanout.snapshot(rebuilt, seat) == table.fanout.snapshot(live, seat)
    compared = 0
    for account, sent in frames.items():
        for frame in sent:
            message = json.loads(frame)
            if message["type"] == "event" and not message["replay"]:
                assert rebuilt_frames[(message["seq"], account)] == frame, (account, message["seq"])
                compared += 1
    assert compared > 600


def test_no_golden_frame_shows_another_seats_hand() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    _, frames = rebuild(golden)
    dealt = {
        int(k): [[str(c) for c in Game.from_deck(d["deck"], d["first_drawer"]).dealt(s)] for s in range(4)]
        for k, d in golden["deals"].items()
    }
    for account, seat in (("a0", 0), ("a1", 1), ("a9", None)):
        messages = [json.loads(f) for (seq, who), f in sorted(frames.items()) if who == account]
        if seat == 1:  # after standing up seat 1's player watches as a spectator
            left = next(m["seq"] for m in messages if m["event"]["kind"] == "seat_left")
            messages = [m for m in messages if m["seq"] < left]
        assert assert_no_leak(messages, seat, dealt) > 150
