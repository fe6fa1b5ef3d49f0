"""Issue 30: matchpoint scoring (pure) — ties, one entrant, a board nobody else played, the standings'
totals and percentages — and each board's matchpoints summing to n(n−1)/2 whatever the results."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from niugui.server.events.matchpoints import matchpoints, standings


def test_a_result_scores_one_for_each_it_beats_and_a_half_for_each_tie() -> None:
    assert matchpoints({"a": 9, "b": 3, "c": 3, "d": -6}) == {"a": 3.0, "b": 1.5, "c": 1.5, "d": 0.0}


def test_all_tied() -> None:
    assert matchpoints({"a": 2, "b": 2, "c": 2}) == {"a": 1.0, "b": 1.0, "c": 1.0}


def test_one_entrant_scores_nothing_out_of_nothing() -> None:
    assert matchpoints({"a": 7}) == {"a": 0.0}
    [line] = standings({1: {"a": 7}})
    assert (line.boards, line.matchpoints, line.maximum, line.percent) == (1, 0.0, 0, None)


def test_a_board_nobody_else_played_adds_nothing_to_the_maximum() -> None:
    lines = {s.entrant: s for s in standings({1: {"a": 5, "b": 1}, 2: {"a": -3}})}
    assert (lines["a"].boards, lines["a"].matchpoints, lines["a"].maximum, lines["a"].percent) == (
        2,
        1.0,
        1,
        100.0,
    )
    assert (lines["b"].boards, lines["b"].matchpoints, lines["b"].maximum, lines["b"].percent) == (
        1,
        0.0,
        1,
        0.0,
    )


def test_standings_order_and_percentages() -> None:
    boards = {1: {"a": 3, "b": 0, "c": 0}, 2: {"a": -3, "b": 6, "c": 0}}
    lines = standings(boards)
    assert [(s.entrant, s.matchpoints, s.maximum, s.percent) for s in lines] == [
        ("b", 2.5, 4, 62.5),
        ("a", 2.0, 4, 50.0),
        ("c", 1.5, 4, 37.5),
    ]


@given(st.dictionaries(st.integers(0, 40), st.integers(-30, 30), max_size=40))
def test_a_boards_matchpoints_sum_to_n_n_minus_1_over_2(results: dict[int, int]) -> None:
    n = len(results)
    points = matchpoints(results)
    assert sum(points.values()) == n * (n - 1) / 2
    for entrant, result in results.items():  # the definition, counted directly
        others = [r for e, r in results.items() if e != entrant]
        assert points[entrant] == sum(1.0 if result > r else 0.5 if result == r else 0.0 for r in others)


@given(st.dictionaries(st.integers(1, 6), st.dictionaries(st.integers(0, 8), st.integers(-9, 9)), max_size=6))
def test_standings_total_every_boards_matchpoints(boards: dict[int, dict[int, int]]) -> None:
    lines = standings(boards)
    assert sum(s.matchpoints for s in lines) == sum(len(r) * (len(r) - 1) / 2 for r in boards.values())
    for s in lines:
        assert s.percent is None or 0 <= s.percent <= 100
