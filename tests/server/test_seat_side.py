"""Issue 28, point 1: each seat is told its own side from its own dealt hand (R10, R11) — in its own
view only. Four people at one table and a spectator play whole games on a manual clock: every frame
to a seat carries that seat's ``side`` (from its dealt hand, unchanged after it plays ♠3/♠2), and no
frame to a spectator carries any side; no frame to a seat names another seat's side before the end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from table_harness import FakeClient, rig, weakest

from niugui.cards import S2, S3
from niugui.game import _side_of
from niugui.server.protocol import Sit, TableSettings, Watch

BLACK = {"S3", "S2"}


def side_from(dealt: list[str]) -> str:
    """The side a dealt hand tells its holder (R10), written out independently of the engine."""
    held = len(BLACK & set(dealt))
    return {0: "red", 1: "black", 2: "double"}[held]


def views(client: FakeClient) -> list[dict[str, Any]]:
    """Every game view sent to ``client`` (in events and snapshots)."""
    out = []
    for message in client.messages:
        view = message.get("view")
        if isinstance(view, dict):
            out.append(view)
    return out


def test_side_of_reads_the_two_black_cards() -> None:
    assert _side_of(0) == "red"
    assert _side_of(1 << S3) == "black" and _side_of(1 << S2) == "black"
    assert _side_of((1 << S3) | (1 << S2)) == "double"


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_each_seat_and_only_it_is_told_its_side(tmp_path: Path, seed: int) -> None:
    r = rig(tmp_path, seed=seed, bot_delay=0.8)
    players = [FakeClient(f"a{n}", f"p{n}") for n in range(4)]
    watcher = FakeClient("a9", "watcher")
    for c in (*players, watcher):
        r.hub.connect(c)
    created: list[Any] = []
    table = r.hub.create_table(players[0], TableSettings(name="sides", games=1), created.append)
    r.call(r.hub.handle, watcher, Watch(type="watch", id="w", table=table.id))
    for n, c in enumerate(players):
        r.call(r.hub.handle, c, Sit(type="sit", id=f"s{n}", table=table.id, seat=n))
    state = table.state
    game = state.game
    assert game is not None, "four people seated: the game is dealt"
    dealt = [game.dealt(s) for s in range(4)]
    expected = [side_from([c.code for c in hand]) for hand in dealt]
    while state.game is not None and not state.game.over:
        seat = state.game.to_move
        assert seat is not None
        r.call(table.act, players[seat], weakest(state.game.view(seat)))
    # A late snapshot (a reload) is a seat view too.
    r.call(r.hub.handle, players[2], Watch(type="watch", id="w2", table=table.id))

    for seat, c in enumerate(players):
        seen = views(c)
        assert seen, f"seat {seat} got no view"
        assert {v["side"] for v in seen} == {expected[seat]}, seat
        others = {expected[s] for s in range(4) if s != seat} - {expected[seat]}
        for frame in c.frames:  # no side but its own, in any part of any frame
            for word in others:
                assert f'"side":"{word}"' not in frame.replace(" ", ""), (seat, word)
    assert views(watcher), "the spectator got views"
    for frame in watcher.frames:
        assert '"side"' not in frame, json.loads(frame)["type"]
