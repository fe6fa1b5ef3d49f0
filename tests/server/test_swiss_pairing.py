"""Swiss pairing and standings (issue 30), pure: tables of four, bots only when the count is not a
multiple of four, no pair at a table twice while it can be avoided (checked against brute force),
places scored by R30's order of going out, dropped after two absences; the page a Swiss shows."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from niugui.server.events.swiss import shown
from niugui.server.events.swiss_pairing import pair_round, pairs_of, repeats, table_sizes
from niugui.server.events.swiss_progress import SwissProgress, SwissSettings
from niugui.server.events.swiss_standings import (
    GameResult,
    SwissRound,
    SwissTable,
    next_round,
    places,
    standings,
)


def partitions(players: list[int], sizes: list[int]) -> Iterator[list[tuple[int, ...]]]:
    """Every way to seat ``players`` at tables of the given sizes (brute force, for small fields)."""
    if not players:
        yield []
        return
    head, rest = players[0], players[1:]
    for size in set(sizes):
        others = list(sizes)
        others.remove(size)
        for mates in combinations(rest, size - 1):
            left = [p for p in rest if p not in mates]
            for more in partitions(left, others):
                yield [(head, *mates), *more]


def test_table_sizes_use_bots_only_when_not_a_multiple_of_four() -> None:
    for n in range(0, 30):
        sizes = table_sizes(n)
        assert sum(sizes) == n
        assert all(1 <= s <= 4 for s in sizes)
        assert len(sizes) == -(-n // 4)
        assert (4 * len(sizes) - n == 0) == (n % 4 == 0)
        assert max(sizes, default=0) - min(sizes, default=0) <= 1 or n < 4


def test_first_round_seats_neighbours_in_standing_together() -> None:
    assert pair_round(list(range(1, 13)), set()) == [(1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12)]


def test_second_round_of_sixteen_avoids_every_repeat() -> None:
    first = pair_round(list(range(16)), set())
    second = pair_round(list(range(16)), pairs_of(first))
    assert repeats(second, pairs_of(first)) == 0
    assert second[0] == (0, 4, 8, 12)  # the leaders of the first round's tables meet


def test_second_round_of_eight_repeats_only_what_it_must() -> None:
    # Two tables of four again: each first-round table's four split 2 + 2 at best, so 4 pairs repeat.
    first = pair_round(list(range(8)), set())
    second = pair_round(list(range(8)), pairs_of(first))
    assert repeats(second, pairs_of(first)) == 4
    assert second == [(0, 1, 4, 5), (2, 3, 6, 7)]


def test_repeats_only_when_unavoidable() -> None:
    # Four players can only sit together again: the repeat is unavoidable, and they still play.
    met = pairs_of([(1, 2, 3, 4)])
    assert pair_round([1, 2, 3, 4], met) == [(1, 2, 3, 4)]


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=1, max_value=9), st.data())
def test_pairing_invariants_and_fewest_repeats(n: int, data: st.DataObject) -> None:
    order = data.draw(st.permutations(list(range(100, 100 + n))))
    history = data.draw(st.lists(st.permutations(order), max_size=3))
    met = pairs_of(t for earlier in history for t in pair_round(earlier, set()))
    tables = pair_round(order, met)
    seated = [p for t in tables for p in t]
    assert sorted(seated) == sorted(order)  # everyone seated exactly once
    assert sorted(len(t) for t in tables) == sorted(table_sizes(n))  # tables of four, bots only if n % 4
    best = min(repeats(p, met) for p in partitions(list(order), list(table_sizes(n))))
    assert repeats(tables, met) == best  # no pair twice while it can be avoided


def test_places_follow_r30() -> None:
    assert places([2, 0, 1]) == [1, 2, 0, 3]
    assert places([1]) == [3, 0, 3, 3]  # 双牛鬼 上游 (R31): the three others are all 下游


def test_standings_score_places_then_points_and_count_bot_tables() -> None:
    full = SwissTable(seats=("p1", "p2", "p3", "p4"), games=(GameResult((0, 2), (2, -2, 2, -2)),))
    botted = SwissTable(seats=("p5", "p6", None, None), games=(GameResult((1, 3), (-1, 1, -1, 1)),))
    people = ["p1", "p2", "p3", "p4", "p5", "p6"]
    lines = standings(people, [SwissRound((full, botted))], place_points=(5, 2, 1, 0))
    assert [(s.account_id, s.score, s.points, s.bots) for s in lines] == [
        ("p1", 5, 2, 0),
        ("p6", 5, 1, 1),
        ("p3", 2, 2, 0),
        ("p5", 0, -1, 1),
        ("p2", 0, -2, 0),
        ("p4", 0, -2, 0),
    ]


def test_two_absences_drop_a_player_from_later_rounds() -> None:
    people = [f"p{n}" for n in range(1, 10)]
    one = SwissRound(tuple(SwissTable(t) for t in next_round(people, [])), absent=frozenset({"p9"}))
    assert all("p9" in p for p in [[x for t in next_round(people, [one]) for x in t]])
    two = SwissRound(tuple(SwissTable(t) for t in next_round(people, [one])), absent=frozenset({"p9"}))
    assert [s.dropped for s in standings(people, [one, two]) if s.account_id == "p9"] == [True]
    third = next_round(people, [one, two])
    assert "p9" not in [x for t in third for x in t]
    assert sorted(x for t in third for x in t if x is not None) == people[:8]
    assert all(None not in t for t in third)  # eight left: no bots


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=13), st.integers(min_value=1, max_value=4), st.data())
def test_rounds_seat_every_entrant_not_dropped_once_and_drop_after_two_absences(
    n: int, rounds: int, data: st.DataObject
) -> None:
    people = [f"p{i}" for i in range(n)]
    progress = SwissProgress(SwissSettings(rounds=rounds))
    for p in people:
        assert progress.register(p, p.upper())
    absences = dict.fromkeys(people, 0)
    for _ in range(rounds):
        present = set(data.draw(st.lists(st.sampled_from(people), unique=True)))
        plans = progress.begin_round(present)
        active = [p for p in people if absences[p] < 2]  # R: dropped after two absences
        seated = [p for plan in plans for p in plan.seats if p is not None]
        assert sorted(seated) == sorted(active)  # each entrant not dropped, exactly once
        assert all(len(plan.seats) == 4 for plan in plans)
        assert sorted(plan.seats.count(None) for plan in plans) == sorted(
            4 - s for s in table_sizes(len(active))
        )
        for plan in plans:  # present people first, then absentees (played by bots), then bots
            kinds = [0 if p in present else 1 if p is not None else 2 for p in plan.seats]
            assert kinds == sorted(kinds)
        for p in active:
            absences[p] += p not in present
        assert set(progress.absent_now()) == {p for p in active if p not in present}
        for index in range(len(plans)):
            progress.mark_done(index)
        again = SwissProgress.from_json(progress.to_json(), progress.settings)
        assert again.to_json() == progress.to_json()
    assert progress.phase == "finished"
    assert {s.account_id: s.dropped for s in progress.standings()} == {p: a >= 2 for p, a in absences.items()}


def test_the_page_of_a_swiss_shows_rounds_absentees_and_the_final_table_only_at_the_end() -> None:
    progress = SwissProgress(SwissSettings(rounds=1, games=1))
    for p in ("a", "b", "c", "d", "e"):
        progress.register(p, p.upper())
    progress.begin_round({"a", "b", "c", "d"})  # e absent: a bot plays e's seat (托管)
    progress.attach(0, "t1")
    progress.attach(1, "t2")
    progress.game_over("t1", (0, 2), (2, -2, 2, -2))
    progress.table_done("t1")
    page = shown(progress, "a")
    assert page["phase"] == "running" and page["final"] is None and page["me"]["table"] is None
    first, second = page["rounds"][0]["tables"]
    assert page["rounds"][0]["absent"] == ["e"] and (first["bots"], second["bots"]) == (1, 2)
    assert [(s["account_id"], s["bot"], s["autoplay"]) for s in second["seats"]] == [
        ("d", False, False),
        ("e", False, True),
        (None, True, False),
        (None, True, False),
    ]
    assert shown(progress, "d")["me"]["table"] == "t2"  # still playing
    progress.game_over("t2", (1, 0), (2, 2, -2, -2))  # e's bot 上游 with d second: a sweep (R33)
    progress.table_done("t2")
    page = shown(progress, None)
    assert page["phase"] == "finished" and page["final"] == page["standings"] and page["me"] is None
    by_id = {line["account_id"]: line for line in page["final"]}
    assert (by_id["e"]["score"], by_id["e"]["absences"], by_id["e"]["dropped"]) == (3, 1, False)
    assert [line["rank"] for line in page["final"]] == [1, 2, 3, 4, 5]
