"""Edges of the public API: what a caller may pass and how it is read."""

import pytest

import niugui
from niugui.cards import S3


def test_R13_classify_takes_a_single_card_object() -> None:
    """A lone ``Card`` is one card (R13), not a 54-bit mask that happens to equal its index."""
    combo = niugui.classify(S3)
    assert combo is not None and combo.kind == "single" and combo.cards == [S3]


def test_R27_a_boolean_is_not_a_seat() -> None:
    game = niugui.Game.deal(seed=1, first_drawer=0)
    assert game.to_move == 1
    before = game.to_record()
    with pytest.raises(niugui.IllegalMove, match="R27"):
        game.play("D4", seat=True)
    assert game.to_record() == before


def test_R12_view_without_history_is_the_view_less_its_history() -> None:
    game = niugui.Game.deal(seed=5, first_drawer=2)
    for _ in range(12):
        game.play(game.legal_plays()[0])
        for seat in (None, 0, 1, 2, 3):
            full = game.view(seat)
            assert full.pop("history") and full.pop("leads") and game.view(seat, history=False) == full
