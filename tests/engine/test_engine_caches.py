"""The engine's caches and tables against fresh work (issue 12): what a game keeps between actions
must equal what a fresh generation from the current hands gives, after every action of random games,
for every seat; ``copy()`` must share nothing that either game changes; the deal's inlined shuffle
must deal exactly what ``random.shuffle`` deals. (The rules themselves are checked against the oracle
in the other engine tests; these tests check that speed kept them.)"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from niugui import Game
from niugui.combos import FIVE, Combo
from niugui.game import shuffle
from niugui.moves import keep, lead_lists, plays


def masks(combos: list[Combo]) -> list[int]:
    return [c.mask for c in combos]


def fresh_legal(game: Game) -> list[int]:
    """The legal plays of the seat to move, generated from scratch from its hand (R26 at the opening)."""
    seat = game.to_move
    assert seat is not None
    moves = plays(game.hand_mask(seat), game.current)
    if not game.actions():
        moves = [m for m in moves if m.mask & 1]
    return masks(moves)


def check_caches(game: Game) -> None:
    """Every seat's kept plays are those of the hand they were kept for, and filtered to the seat's
    hand now they equal a fresh generation from it, in the same order; the legal plays equal a fresh
    generation, in the same order."""
    for seat in range(4):
        kept = game._kept[seat]
        if kept is not None:
            held, loose, fives = kept
            hand = game.hand_mask(seat)
            assert not hand & ~held, "a kept list is for a hand that lacks some of the cards held now"
            assert (masks(loose), masks(fives)) == tuple(masks(x) for x in lead_lists(held)), seat
            now = keep(hand, kept)
            assert now[0] == hand
            assert (masks(now[1]), masks(now[2])) == tuple(masks(x) for x in lead_lists(hand)), seat
    if game.to_move is not None:
        assert masks(game.legal_combos()) == fresh_legal(game)


def play_randomly(game: Game, rng: random.Random, pass_rate: float, steps: int = 1000) -> None:
    for _ in range(steps):
        if game.over:
            return
        combos = game.legal_combos()
        if game.can_pass() and (not combos or rng.random() < pass_rate):
            game.pass_turn()
        else:
            game.play(rng.choice(combos))


settings_ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings_
@given(st.integers(0, 2**32 - 1), st.integers(0, 3), st.sampled_from([0.0, 0.3, 0.7]), st.booleans())
def test_kept_plays_equal_a_fresh_generation_after_every_action(
    seed: int, first_drawer: int, pass_rate: float, warm_all: bool
) -> None:
    """After every action of a random game, for every seat whose list is built (all four from the
    deal when ``warm_all``, else as play needs them), the kept lists equal a fresh generation."""
    game = Game.deal(seed=seed, first_drawer=first_drawer)
    if warm_all:
        for seat in range(4):
            game._kept[seat] = keep(game.hand_mask(seat))
    rng = random.Random(seed)
    check_caches(game)
    while not game.over:
        play_randomly(game, rng, pass_rate, steps=1)
        check_caches(game)
    if warm_all:
        assert all(k is not None for k in game._kept)


def test_the_five_card_follow_comes_from_the_kept_list() -> None:
    """Following a five-card play uses (and builds) the seat's kept list; the answer is the fresh one."""
    seen = 0
    for seed in range(300):
        game = Game.deal(seed=seed, first_drawer=seed % 4)
        rng = random.Random(seed)
        while not game.over:
            if game.current is not None and game.current.group == FIVE:
                seen += 1
                check_caches(game)
                assert game._kept[game.to_move or 0] is not None
            play_randomly(game, rng, 0.3, steps=1)
    assert seen > 100


def test_lead_lists_are_plays_split_in_two() -> None:
    rng = random.Random(4)
    for _ in range(2000):
        hand = sum(1 << c for c in rng.sample(range(54), rng.randint(0, 20)))
        loose, fives = lead_lists(hand)
        assert masks(loose + fives) == masks(plays(hand))
        assert all(c.group != FIVE for c in loose) and all(c.group == FIVE for c in fives)


def state(game: Game) -> list[Any]:
    return [game.view(s) for s in (None, 0, 1, 2, 3)] + [game.to_record(), masks(game.legal_combos())]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(0, 3), st.integers(0, 120))
def test_copy_is_independent_and_plays_on_like_a_fresh_game(seed: int, first_drawer: int, at: int) -> None:
    """A copy taken at any point, played to the end, leaves the original exactly as it was; and at
    every step the copy's legal plays equal those of a game rebuilt from its record (no shared
    cache was changed by either)."""
    game = Game.deal(seed=seed, first_drawer=first_drawer)
    rng = random.Random(seed)
    play_randomly(game, rng, 0.4, steps=at)
    for seat in range(4):  # build every kept list, so that the copy shares all of them
        game._kept[seat] = keep(game.hand_mask(seat))
    before = state(game) if not game.over else None
    other = game.copy()
    while not other.over:
        assert masks(other.legal_combos()) == masks(Game.from_record(other.to_record()).legal_combos())
        check_caches(other)
        play_randomly(other, rng, 0.4, steps=1)
    if before is not None:
        assert state(game) == before
        check_caches(game)
        play_randomly(game, rng, 0.4)  # and the original still plays to its own end
        assert game.over


def test_deal_shuffles_exactly_as_random_shuffle() -> None:
    """R9's deck for a seed is what ``random.Random(seed).shuffle`` gives (records and perft data
    name decks by seed), for integer and string seeds and for decks of any length."""
    for seed in [*range(300), "a", "table/7", 2**64 - 1]:
        want = list(range(54))
        random.Random(seed).shuffle(want)
        got = list(range(54))
        shuffle(got, random.Random(seed))
        assert got == want, seed
        assert Game.deal(seed=seed, first_drawer=0).deck == want
    for size in range(0, 54):
        want = list(range(size))
        random.Random(size).shuffle(want)
        got = list(range(size))
        shuffle(got, random.Random(size))
        assert got == want
