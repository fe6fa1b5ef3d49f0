"""The two-seat race solver (niugui.bots.endgame) against a plain game-tree search, and in the expert."""

from __future__ import annotations

import random

import pytest

from niugui.bots import endgame
from niugui.bots.endgame import race_move
from niugui.bots.expert import FAST, decide
from niugui.bots.knowledge import Situation
from niugui.cards import FULL_MASK, mask_of_codes
from niugui.combos import Combo
from niugui.moves import plays


def first_out(mover: int, other: int, current: Combo | None) -> bool:
    """Plain search: does the seat to move go out first? (R27-R30 with two holders: one pass ends a trick.)"""
    options: list[Combo | None] = list(plays(mover, current))
    if current is not None:
        options.append(None)
    for action in options:
        if action is None:
            if not first_out(other, mover, None):
                return True
        elif action.mask == mover or not first_out(other, mover ^ action.mask, action):
            return True
    return False


@pytest.mark.parametrize("budget", [None, 10**6])
def test_race_solver_agrees_with_plain_search(budget: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """With an unbounded budget it finds every won race; with the default one, what it finds is right."""
    if budget is not None:
        monkeypatch.setattr(endgame, "NODE_BUDGET", budget)
    rng = random.Random(5)
    solved = lost = 0
    for _ in range(300):
        cards = rng.sample(range(54), rng.randrange(3, 9))
        cut = rng.randrange(1, len(cards))
        mine = sum(1 << c for c in cards[:cut])
        theirs = sum(1 << c for c in cards[cut:])
        found, action = race_move(mine, theirs, None)
        winnable = first_out(mine, theirs, None)
        assert found == winnable if budget else not found or winnable
        if found:
            assert action is not None  # a lead is a play (R27)
            rest = mine ^ action.mask
            assert rest == 0 or not first_out(theirs, rest, action)
            solved += 1
        else:
            lost += 1
    assert solved and lost


def race_situation(hand: str, theirs: str) -> Situation:
    mine, other = mask_of_codes(hand.split()), mask_of_codes(theirs.split())
    counts = [mine.bit_count(), 0, other.bit_count(), 0]
    return Situation(
        seat=0, hand=mine, counts=counts, marks=[0, mask_of_codes(["S3"]), 0, 0],
        played=FULL_MASK ^ mine ^ other,
        finish=[1, 3], current=None, current_seat=-1, opening=False,
    )


def test_expert_solves_a_race_its_rules_of_thumb_lose() -> None:
    """R29, R30: ♣4 ♥8 ♥10 ♠Q against ♥5 ♠6 ♣A. Leading the weakest card (♣4) loses the race;
    the solver finds a lead that wins it."""
    sit = race_situation("C4 H8 HT SQ", "H5 S6 CA")
    heuristic = decide(sit, FAST)
    assert heuristic is not None and [str(c) for c in heuristic.cards] == ["C4"]
    assert first_out(sit.unseen, sit.hand ^ heuristic.mask, heuristic)  # the other seat then wins
    choice = decide(sit)
    assert choice is not None
    assert not first_out(sit.unseen, sit.hand ^ choice.mask, choice)  # now it cannot
