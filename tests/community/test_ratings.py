"""Ratings (niugui.ratings): the project's wiring of openskill — teams from the sides (R10), ranks
from the outcome (R32–R34), escapes (R35) and fixed bot ratings — checked against the library's own
answers for a fixed table of games."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from niugui import Game
from niugui.game import Result
from niugui.ratings import BOT_RATINGS, Rating, ranks, rate_game, sides

LIBRARY = PlackettLuce()
BEFORE = [Rating(25.0, 8.0), Rating(27.0, 5.0), Rating(22.0, 7.0), Rating(30.0, 3.0)]

# (result, the teams the library must be given, their ranks) — written out by hand from the rules.
TABLE = [
    (Result("2v2", "sweep", [0, 1], [2, 2, -2, -2], [0, 1]), [[0, 1], [2, 3]], [1, 2]),  # R33 牛鬼完胜
    (Result("2v2", "win", [2, 0, 3], [-1, -1, 1, 1], [0, 1]), [[0, 1], [2, 3]], [2, 1]),  # R33 牛鬼小胜
    (Result("2v2", "draw", [1, 0, 2], [0, 0, 0, 0], [1, 3]), [[1, 3], [0, 2]], [1, 1]),  # R33 免炒
    (Result("1v3", "double_win", [2], [-3, -3, 9, -3], [2]), [[2], [0, 1, 3]], [1, 2]),  # R34 双牛成功
    (Result("1v3", "double_draw", [0, 3], [0, 0, 0, 0], [3]), [[3], [0, 1, 2]], [1, 1]),  # R34 双牛逃跑
    (Result("1v3", "double_caught", [0, 1, 3], [2, 2, -6, 2], [2]), [[2], [0, 1, 3]], [2, 1]),  # 活抓双牛
]


def library(teams: list[list[int]], order: list[int], before: list[Rating]) -> dict[int, Rating]:
    rated = LIBRARY.rate(
        [[LIBRARY.rating(before[s].mu, before[s].sigma) for s in team] for team in teams], ranks=order
    )
    pairs = [(s, r) for team, out in zip(teams, rated, strict=True) for s, r in zip(team, out, strict=True)]
    return {s: Rating(r.mu, r.sigma) for s, r in pairs}


@pytest.mark.parametrize(("result", "teams", "order"), TABLE, ids=[r.outcome for r, _, _ in TABLE])
def test_R32_R33_R34_ratings_equal_the_librarys_for_sides_and_ranks(
    result: Result, teams: list[list[int]], order: list[int]
) -> None:
    expected = library(teams, order, BEFORE)
    after = rate_game(result, BEFORE)
    assert after == [expected[s] for s in range(4)]
    if order[0] != order[1]:  # winners up, losers down
        winners = teams[order.index(1)]
        for seat in range(4):
            assert (after[seat].mu > BEFORE[seat].mu) == (seat in winners)


@pytest.mark.parametrize("escaper", [0, 2])
def test_R35_an_escape_is_a_loss_for_the_escaper_alone(escaper: int) -> None:
    scores = [0, 0, 0, 0]
    scores[escaper] = -9
    result = Result("2v2", "escape", [], scores, [0, 1])
    after = rate_game(result, BEFORE)
    mine, theirs = ([0, 1], [2, 3]) if escaper in (0, 1) else ([2, 3], [0, 1])
    expected = library([mine, theirs], [2, 1], BEFORE)
    assert after[escaper] == expected[escaper] and after[escaper].mu < BEFORE[escaper].mu
    assert [after[s] for s in range(4) if s != escaper] == [BEFORE[s] for s in range(4) if s != escaper]


def test_bots_keep_their_fixed_ratings_but_weigh_in() -> None:
    result = TABLE[0][0]  # black (0, 1) sweeps
    people = [Rating(), Rating(), BOT_RATINGS["expert"], BOT_RATINGS["random"]]
    after = rate_game(result, people, fixed=[False, False, True, True])
    assert after[2:] == people[2:]
    stronger = rate_game(result, [Rating(), Rating(), BOT_RATINGS["expert"], BOT_RATINGS["expert"]],
                         fixed=[False, False, True, True])
    assert stronger[0].mu > after[0].mu  # beating stronger bots is worth more


def test_R10_R32_sides_and_ranks_of_real_games() -> None:
    """On engine-played games, the winner side (the 上游's, R32) ranks first and holds the black
    seats exactly when black won; draws rank the sides equal."""
    for seed in range(40):
        game = Game.deal(seed=seed, first_drawer=seed % 4)
        while not game.over:
            legal = game.legal_combos()
            if game.can_pass() and (not legal or seed % 3 == 0):
                game.pass_turn()
            else:
                game.play(legal[-1 if seed % 2 else 0])
        result = game.result
        assert result is not None
        black, red = sides(result)
        assert sorted(black + red) == [0, 1, 2, 3] and black == sorted(result.black)
        black_rank, red_rank = ranks(result)
        if result.outcome in ("draw", "double_draw"):
            assert black_rank == red_rank
        else:
            assert (black_rank == 1) == (result.finish[0] in black)
            assert (black_rank == 1) == (result.scores[black[0]] > 0)


def test_shown_rating_is_conservative() -> None:
    assert Rating().shown == 0
    assert Rating(30.0, 1.0).shown > Rating(30.0, 2.0).shown
    assert BOT_RATINGS["random"].shown < BOT_RATINGS["basic"].shown < BOT_RATINGS["expert"].shown
    assert BOT_RATINGS["expert"].shown < BOT_RATINGS["search"].shown
