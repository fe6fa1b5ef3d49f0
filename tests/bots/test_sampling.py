"""Determinization (niugui.bots.sampling): sampled worlds agree with everything public to the seat."""

from __future__ import annotations

import random

import pytest
from bot_positions import positions

from niugui import Game
from niugui.bots.sampling import dealt_hands, knowledge_of, reconstruct, sample_hands
from niugui.cards import FULL_MASK, S2, S3, mask_of, parse_cards
from niugui.game import hand_sizes


def played_by(game: Game, seat: int) -> int:
    return mask_of(c for s, action, cards in game.actions() if s == seat and action == "play" for c in cards)


@pytest.mark.parametrize("game", positions(40), ids=lambda g: f"{len(g.actions())}actions")
def test_samples_respect_counts_plays_own_hand_and_marks(game: Game) -> None:
    """R1, R9, R11, R12: each sample keeps every public count, no played card, the seat's own hand,
    and puts an unmarked ♠3/♠2 the seat does not hold in another hand still holding cards."""
    rng = random.Random(1)
    for seat in range(4):
        info = knowledge_of(game.view(seat))
        played = [played_by(game, s) for s in range(4)]
        all_played = played[0] | played[1] | played[2] | played[3]
        for _ in range(5):
            hands = sample_hands(info, rng)
            assert [h.bit_count() for h in hands] == [game.count(s) for s in range(4)]
            assert hands[seat] == game.hand_mask(seat)
            union = 0
            for hand in hands:
                assert not union & hand
                union |= hand
            assert not union & all_played
            assert union | all_played == FULL_MASK  # all 54 cards (R1)
            for black in (S2, S3):
                owners = [s for s in range(4) if (hands[s] | played[s]) >> black & 1]
                assert len(owners) == 1
                marked = [s for s in range(4) if str(black) in game.view(seat)["marks"][s]]
                if marked:  # R11: a mark shows who played it
                    assert owners == marked and not any(h >> black & 1 for h in hands)
                else:
                    assert game.count(owners[0]) > 0
            dealt = dealt_hands(info, hands)
            assert [d.bit_count() for d in dealt] == hand_sizes(game.first_drawer)  # R9


@pytest.mark.parametrize("game", positions(40, seed=1), ids=lambda g: f"{len(g.actions())}actions")
def test_reconstructed_world_shows_the_seat_the_same_view(game: Game) -> None:
    """R12: a world rebuilt from a sample and replayed through the history is, for the seat, the
    very game it sees — same counts, marks, trick, turn, legal plays and hand."""
    rng = random.Random(2)
    for seat in range(4):
        view = game.view(seat)
        info = knowledge_of(view)
        for _ in range(3):
            world = reconstruct(info, sample_hands(info, rng))
            assert world.view(seat) == view
            assert world.view(None) == game.view(None)


def test_the_whole_sample_space_is_reached() -> None:
    """An unplayed ♠2 not in the seat's hand can be in any other seat holding cards (R10, R11)."""
    game = Game.deal(seed=4, first_drawer=0)
    seat = next(s for s in range(4) if not game.hand_mask(s) >> S2 & 1)
    info = knowledge_of(game.view(seat))
    rng = random.Random(3)
    owners = {next(s for s, h in enumerate(sample_hands(info, rng)) if h >> S2 & 1) for _ in range(200)}
    assert owners == {s for s in range(4) if s != seat}


def test_a_spectator_view_or_a_finished_game_is_refused() -> None:
    game = Game.deal(seed=5, first_drawer=0)
    with pytest.raises(ValueError, match="spectator"):
        knowledge_of(game.view(None))
    game.escape(1)
    with pytest.raises(ValueError, match="over"):
        knowledge_of(game.view(0))


def test_an_inconsistent_view_is_refused() -> None:
    """R1: a view whose counts do not add up to the 54 cards is not sampled from."""
    game = Game.deal(seed=6, first_drawer=0)
    view = game.view(0)
    view["counts"][1] += 1
    with pytest.raises(ValueError, match="R1"):
        knowledge_of(view)
    view = game.view(0)
    view["marks"][2] = [str(parse_cards("S3")[0])]
    with pytest.raises(ValueError, match="R11"):
        knowledge_of(view)
