"""Every frame the server assembles from serialized parts is exactly what its message model
serializes to: the models stay the one definition of what is sent."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from niugui import Game
from niugui.server import protocol
from niugui.server.protocol import (
    SERVER_ADAPTER,
    Account,
    Event,
    EvPlay,
    GameView,
    SeatRef,
    SeatState,
    Snapshot,
    StateJson,
    TableSettings,
    TableState,
    event_frame,
    snapshot_frame,
    view_json,
)


def a_state(you: int | None) -> TableState:
    seats = [SeatState(seat=n, player=None, online=True, autoplay=False, ready=False) for n in range(4)]
    return TableState(
        id="t1", name="牌桌", private=False, code=None, creator="a1", settings=TableSettings(),
        status="playing", seats=seats, totals=[1, -1, 1, -1], games_played=1, game_no=2, game_id=7,
        deadline=1800000012.345678, commitment="ab" * 32, flip=None, you=you,
    )  # fmt: skip


def views() -> list[dict[str, object]]:
    game = Game.deal(seed=5, first_drawer=1)
    for _ in range(7):
        view = game.view(game.to_move)
        if view["can_pass"]:
            game.pass_turn()
        else:
            game.play(view["legal_plays"][0])
    seat = game.to_move
    assert seat is not None
    found = [game.view(s, history=False) for s in range(4)] + [game.view(None, history=False)]
    while not game.over:
        game.play(game.legal_combos()[-1]) if not game.can_pass() else game.pass_turn()
    return [*found, game.view(seat), game.view(None)]


@pytest.mark.parametrize("you", [0, 3, None])
def test_an_event_frame_is_its_model_serialized(you: int | None) -> None:
    event = EvPlay(kind="play", seat=2, play=["D4", "C4"], by="player")
    for view in views():
        model = GameView.model_validate(view)
        frame = event_frame(
            "t1",
            9,
            1800000000.123,
            protocol.event_json(event),
            view_json(view),
            StateJson(a_state(None)).for_seat(you),
        )
        whole = Event(
            type="event", table="t1", seq=9, time=1800000000.123, replay=False, event=event, view=model,
            state=a_state(you),
        )  # fmt: skip
        expected = json.loads(whole.model_dump_json(by_alias=True))
        expected["view"] = json.loads(model.model_dump_json(by_alias=True, exclude_unset=True))
        assert json.loads(frame) == expected
        assert SERVER_ADAPTER.validate_json(frame) == whole
        assert json.loads(frame)["view"] == view  # exactly the engine's view, no key added or lost


def test_a_snapshot_frame_and_the_replies_are_their_models() -> None:
    raw = Game.deal(seed=2, first_drawer=0).view(0)
    view = GameView.model_validate(raw)
    frame = snapshot_frame("t1", 4, view_json(raw), StateJson(a_state(None)).for_seat(0))
    assert SERVER_ADAPTER.validate_json(frame) == Snapshot(
        type="snapshot", table="t1", seq=4, view=view, state=a_state(0)
    )
    assert snapshot_frame("t1", 1, view_json(None), StateJson(a_state(None)).for_seat(None)).count(
        '"view":null'
    )
    ack = protocol.ack_frame("r1", 3, protocol.SeatData(seat=None))
    assert json.loads(ack) == {"type": "ack", "id": "r1", "seq": 3, "data": {"seat": None}}
    error = protocol.error_frame(None, "bad_json", "not JSON")
    assert json.loads(error) == {
        "type": "error",
        "id": None,
        "code": "bad_json",
        "rule": None,
        "message": "not JSON",
    }
    welcome = protocol.welcome_frame(Account(id="a", nickname="n"), [SeatRef(table="t1", seat=2)])
    assert json.loads(welcome)["seats"] == [{"table": "t1", "seat": 2}]
    for text in (ack, error, welcome):
        SERVER_ADAPTER.validate_json(text)


@given(st.text(min_size=1, max_size=64), st.none() | st.integers(0, 10**6))
def test_an_ack_without_data_is_what_its_model_serializes_to(request_id: str, seq: int | None) -> None:
    model = protocol.Ack(type="ack", id=request_id, seq=seq, data=None).model_dump_json()
    assert protocol.ack_frame(request_id, seq) == model
