"""A table's series of games: the first drawer of each game (R8) and the running totals (R36)."""

from __future__ import annotations

from collections import Counter

from engine_helpers import random_game
from engine_oracle import DECK

from niugui import Game, Result, parse_cards
from niugui.series import Series, flip_first_drawer, flip_value


def test_R8_first_game_first_drawer_is_designated_by_a_turned_up_card() -> None:
    """R8 翻牌法: the first game's first drawer is designated; every card designates a seat 0..3 and
    every seat can be designated; the value counted is A=1, 2–10 pips, J/Q/K 11–13, jokers 14/15."""
    assert not Series().first_drawer_known() and Series().next_first_drawer is None
    seats = Counter(flip_first_drawer(card) for card in parse_cards(" ".join(DECK)))
    assert set(seats) == {0, 1, 2, 3} and sum(seats.values()) == 54
    values = {str(c): flip_value(c) for c in parse_cards("SA S2 S3 S9 ST SJ SQ SK BJ RJ")}
    assert values == {
        "SA": 1,
        "S2": 2,
        "S3": 3,
        "S9": 9,
        "ST": 10,
        "SJ": 11,
        "SQ": 12,
        "SK": 13,
        "BJ": 14,
        "RJ": 15,
    }
    for card in parse_cards(" ".join(DECK)):
        assert flip_first_drawer(card) == (flip_value(card) - 1) % 4  # counted from seat 0 in play order


def test_R8_R36_later_games_start_with_the_previous_upper_and_totals_add_up() -> None:
    """R8: the previous game's 上游 draws first; R36: the table keeps every seat's running total."""
    series = Series()
    first_drawer = flip_first_drawer(parse_cards("H7")[0])
    totals = [0, 0, 0, 0]
    for seed in range(12):
        game, _ = random_game(seed * 31 + 1, first_drawer=first_drawer)
        assert game.first_drawer == first_drawer and game.result is not None
        series.add(game.result)
        totals = [t + s for t, s in zip(totals, game.result.scores, strict=True)]
        assert series.totals == totals and series.games == seed + 1
        assert series.first_drawer_known() and series.next_first_drawer == game.result.finish[0]
        first_drawer = series.next_first_drawer
        assert sum(series.totals) == 0  # no escapes here: every game's scores sum to zero


def test_R8_R35_after_an_escape_with_no_upper_the_table_designates_again() -> None:
    series = Series()
    series.add(Result("2v2", "sweep", [2, 0], [2, -2, 2, -2], [0, 2]))
    game = Game.deal(seed=1, first_drawer=2)
    game.escape(3)
    assert game.result is not None and game.result.finish == []
    series.add(game.result)
    assert series.totals == [2, -2, 2, -11] and series.next_first_drawer is None
    assert not series.first_drawer_known()


def test_R8_R30_R35_an_escape_after_someone_went_out_keeps_that_upper() -> None:
    """R30: the first seat to go out is 上游 (RECORD.md: finish[0] is 上游, escape results too); R8:
    the previous game's 上游 draws first next — only a game with no 上游 makes the table designate."""
    series = Series()
    series.add(Result("2v2", "escape", [1], [0, 0, -9, 0], [0, 2]))
    assert series.next_first_drawer == 1 and series.totals == [0, 0, -9, 0]
