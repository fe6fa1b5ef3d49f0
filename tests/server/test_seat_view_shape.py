"""The protocol's view models are the engine's ``SeatView`` shape: same keys, same required keys.

The engine defines the shape (``niugui.game.SeatView`` and its sub-shapes, standard library only);
the pydantic models in ``niugui.server.protocol`` document and validate it. A key added to one and
not the other fails here.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from niugui import Game
from niugui.game import ActionEntry, PlayEntry, ResultDict, SeatView
from niugui.server import protocol


def keys(model: type[BaseModel]) -> tuple[set[str], set[str]]:
    """(every key, the required keys) of a model, by their JSON names."""
    fields = model.model_fields
    every = {field.alias or name for name, field in fields.items()}
    required = {field.alias or name for name, field in fields.items() if field.is_required()}
    return every, required


def typed_keys(shape: Any) -> tuple[set[str], set[str]]:
    return set(shape.__annotations__), set(shape.__required_keys__)


def test_game_view_has_the_keys_of_seat_view() -> None:
    every, required = keys(protocol.GameView)
    assert every == typed_keys(SeatView)[0]
    assert required == typed_keys(SeatView)[1]


def test_entries_and_result_have_one_shape() -> None:
    assert keys(protocol.PlayView) == typed_keys(PlayEntry)
    assert keys(protocol.ResultView) == typed_keys(ResultDict)
    entries = (protocol.PlayView, protocol.PassView, protocol.EscapeView)
    action_keys = set().union(*(keys(model)[0] for model in entries))
    assert action_keys == typed_keys(ActionEntry)[0]


def test_every_view_of_a_game_validates_as_the_protocol_model() -> None:
    game = Game.deal(seed=11, first_drawer=1)
    while True:
        for seat in (None, 0, 1, 2, 3):
            for history in (True, False):
                protocol.GameView.model_validate(game.view(seat, history=history))
        if game.over:
            break
        if game.can_pass() and (len(game.actions()) % 3 or not game.legal_combos()):
            game.pass_turn()
        else:
            game.play(game.legal_combos()[0])
