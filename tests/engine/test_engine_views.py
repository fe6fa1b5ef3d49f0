"""``Game.views`` (all seats' views at once, what a server sends after each action) is exactly
``Game.view`` for each seat, at every point of random games, with and without history; and
``codes_of`` spells a mask as ``cards_of`` does."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from niugui import Game
from niugui.cards import cards_of, codes_of

SEATS: list[int | None] = [0, 1, 2, 3, None]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6))
def test_views_equal_view_at_every_step(seed: int) -> None:
    rng = random.Random(seed)
    game = Game.deal(seed=seed, first_drawer=seed % 4)
    while True:
        for history in (False, True):
            views = game.views(SEATS, history=history)
            assert list(views) == SEATS
            for seat in SEATS:
                assert views[seat] == game.view(seat, history=history)
                assert list(views[seat]) == list(game.view(seat, history=history))  # same key order
        if game.over:
            break
        if rng.random() < 0.01:
            holding = [s for s in range(4) if game.count(s)]
            game.escape(rng.choice(holding))
            continue
        combos = game.legal_combos()
        if game.can_pass() and (not combos or rng.random() < 0.4):
            game.pass_turn()
        else:
            game.play(rng.choice(combos))


@given(st.integers(0, (1 << 54) - 1))
def test_codes_of_spells_cards_of(mask: int) -> None:
    assert codes_of(mask) == [str(c) for c in cards_of(mask)]
