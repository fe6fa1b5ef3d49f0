"""Issue 15, finding 9: accounts whose rated results come from a closed circle are flagged."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from niugui.server.collusion import Rule, concentration, flagged

others = st.frozensets(st.sampled_from([f"p{n}" for n in range(8)]), min_size=1, max_size=3)


def test_the_red_teams_farm_is_flagged() -> None:
    """Four guests of one controller at a private table, 15 games: the same three others every time."""
    assert flagged([frozenset({"g2", "g3", "g4"})] * 15)


def test_a_group_with_a_changing_fourth_is_not_flagged() -> None:
    """Two friends who play 2v2 with a different pair of strangers each time are not a closed circle."""
    games = [frozenset({"friend", f"stranger{n}", f"other{n}"}) for n in range(30)]
    assert concentration(games) < 0.1 and not flagged(games)


def test_too_few_games_and_old_games_do_not_flag() -> None:
    circle = [frozenset({"a", "b", "c"})]
    varied = [frozenset({f"x{n}", f"y{n}", f"z{n}"}) for n in range(50)]
    assert not flagged(circle * 9)  # under min_games
    assert flagged(circle * 10)
    assert not flagged(varied + circle * 40)  # newest first: the circle is outside the window of 50
    assert flagged(circle * 45 + varied, Rule(window=50))


@given(st.lists(others, max_size=40))
def test_concentration_is_a_share_and_ignores_order(games: list[frozenset[str]]) -> None:
    share = concentration(games)
    assert 0.0 <= share <= 1.0
    assert concentration(list(reversed(games))) == share
    if games and len({p for g in games for p in g}) <= 3:
        assert share == 1.0  # three or fewer people met in all: every game is inside the circle
