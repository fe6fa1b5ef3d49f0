"""The quick-play queue's rules (niugui.server.matchmaking), without a server or a clock."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from niugui.server.matchmaking import EscapePolicy, Preferences, Queue, Ticket, escape_delay


def names(groups: list[tuple[list[Ticket], Preferences]]) -> list[list[str]]:
    return [[t.account_id for t in group] for group, _ in groups]


def test_eight_players_make_two_tables_oldest_first() -> None:
    queue = Queue()
    for i, name in enumerate("abcdefgh"):
        queue.join(Ticket(name, joined_at=float(i)))
    assert names(queue.match(now=10.0)) == [list("abcd"), list("efgh")]
    assert len(queue) == 0


def test_a_player_who_left_is_never_seated() -> None:
    queue = Queue()
    for i, name in enumerate("abcde"):
        queue.join(Ticket(name, joined_at=float(i)))
    assert queue.leave("b") and not queue.leave("b")
    assert names(queue.match(now=10.0)) == [list("acde")]
    assert "b" not in queue


def test_preferences_must_agree_and_any_fits_all() -> None:
    queue = Queue()
    wishes = {"a": 20, "b": 30, "c": None, "d": 30, "e": 20, "f": 30, "g": None}
    for i, (name, seconds) in enumerate(wishes.items()):
        queue.join(Ticket(name, joined_at=float(i), preferences=Preferences(turn_seconds=seconds)))
    groups = queue.match(now=10.0)
    assert names(groups) == [["a", "c", "e", "g"]]  # the oldest, a, with everyone who accepts 20 s
    assert groups[0][1] == Preferences(turn_seconds=20)
    assert sorted(t.account_id for t in queue.waiting()) == ["b", "d", "f"]  # three 30 s: no fourth


def test_players_who_just_met_are_split_up_while_others_wait() -> None:
    table = frozenset("abcd")
    queue = Queue()
    for i, name in enumerate("abcd"):
        queue.join(Ticket(name, joined_at=float(i), recent=table - {name}))
    for i, name in enumerate("efgh"):
        queue.join(Ticket(name, joined_at=10.0 + i))
    first, second = names(queue.match(now=20.0))
    assert first == ["a", "e", "f", "g"]  # nobody a just played with, though b, c, d came earlier
    assert sorted(second) == ["b", "c", "d", "h"]


def test_a_repeat_pair_is_seated_only_when_no_four_without_one_can_be_formed() -> None:
    """b just played with c and d. Taking b, the oldest partner of a, would seat b with c or d again;
    a, c, d, e meet nobody they just played with, so that is the table (b waits for fresh faces)."""
    queue = Queue()
    recent = {"b": frozenset("cd"), "c": frozenset("b"), "d": frozenset("b")}
    for i, name in enumerate("abcde"):
        queue.join(Ticket(name, joined_at=float(i), recent=recent.get(name, frozenset())))
    assert names(queue.match(now=10.0)) == [list("acde")]
    assert [t.account_id for t in queue.waiting()] == ["b"]


def test_the_same_four_may_play_again_when_nobody_else_waits() -> None:
    table = frozenset("abcd")
    queue = Queue()
    for i, name in enumerate("abcd"):
        queue.join(Ticket(name, joined_at=float(i), recent=table - {name}))
    assert names(queue.match(now=5.0)) == [list("abcd")]


def test_R35_escapes_delay_a_player_and_delayed_players_meet_first() -> None:
    policy = EscapePolicy(free=1, delay_per_escape=60.0, max_delay=300.0)
    assert [escape_delay(n, policy) for n in (0, 1, 2, 6, 9)] == [0.0, 0.0, 60.0, 300.0, 300.0]
    queue = Queue()
    queue.join(Ticket("x", joined_at=0.0, ready_at=60.0))  # two recent escapes
    for i, name in enumerate("abc"):
        queue.join(Ticket(name, joined_at=1.0 + i))
    assert queue.match(now=30.0) == []  # x is not seated before ready_at; a, b, c are only three
    queue.join(Ticket("y", joined_at=40.0, ready_at=100.0))
    queue.join(Ticket("z", joined_at=41.0, ready_at=61.0))
    queue.join(Ticket("w", joined_at=42.0, ready_at=62.0))
    queue.join(Ticket("d", joined_at=43.0))
    assert names(queue.match(now=50.0)) == [list("abcd")]
    assert queue.match(now=70.0) == []  # x, z, w are ready; y is not
    assert names(queue.match(now=100.0)) == [list("xyzw")]


def test_a_waiting_player_may_take_bots_after_the_wait() -> None:
    """(Every ticket here agreed to bots: ``Ticket.bots``, issue 33 finding 9.)"""
    queue = Queue()
    queue.join(Ticket("a", joined_at=0.0, bots=True))
    queue.join(Ticket("p", joined_at=0.0, ready_at=50.0, bots=True))
    queue.join(Ticket("t", joined_at=1.0, preferences=Preferences(turn_seconds=30), bots=True))
    queue.join(Ticket("b", joined_at=2.0, preferences=Preferences(turn_seconds=20), bots=True))
    queue.join(Ticket("c", joined_at=3.0, bots=True))
    queue.join(Ticket("d", joined_at=4.0, bots=True))
    assert queue.take_with_bots("a", now=29.0, wait=30.0) is None and "a" in queue  # not yet
    assert queue.take_with_bots("p", now=40.0, wait=30.0) is None  # its fair-play delay runs to 50
    taken = queue.take_with_bots("a", now=31.0, wait=30.0)
    assert taken is not None
    group, prefs = taken
    # the oldest compatible ready players join (t's timer conflicts with b's once b is in)
    assert [t.account_id for t in group] == ["a", "t", "c"] and prefs == Preferences(turn_seconds=30)
    assert sorted(queue.tickets) == ["b", "d", "p"]


def test_a_delayed_player_taking_bots_takes_only_other_delayed_players() -> None:
    queue = Queue()
    queue.join(Ticket("x", joined_at=0.0, ready_at=60.0, bots=True))
    queue.join(Ticket("a", joined_at=1.0, bots=True))
    queue.join(Ticket("y", joined_at=2.0, ready_at=10.0, bots=True))
    taken = queue.take_with_bots("x", now=90.0, wait=30.0)
    assert taken is not None and [t.account_id for t in taken[0]] == ["x", "y"]


def test_joining_again_keeps_the_place_in_line() -> None:
    queue = Queue()
    queue.join(Ticket("a", joined_at=0.0))
    queue.join(Ticket("b", joined_at=1.0))
    queue.join(Ticket("a", joined_at=5.0, preferences=Preferences(games=3)))
    assert [t.account_id for t in queue.waiting()] == ["a", "b"]
    assert queue.tickets["a"].preferences == Preferences(games=3)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([None, 20, 30]), st.sampled_from([None, 1, 3]), st.booleans()),
        max_size=24,
    )
)
def test_every_table_is_four_distinct_compatible_players_and_nobody_is_lost(
    tickets: list[tuple[int | None, int | None, bool]],
) -> None:
    queue = Queue()
    for i, (seconds, games, delayed) in enumerate(tickets):
        queue.join(Ticket(f"p{i}", float(i), Preferences(seconds, games), ready_at=i + 100.0 * delayed))
    groups = queue.match(now=50.0) + queue.match(now=500.0)
    seated = [t.account_id for group, _ in groups for t in group]
    assert len(seated) == len(set(seated)) == 4 * len(groups)
    everyone = sorted(f"p{i}" for i in range(len(tickets)))
    assert sorted(seated + [t.account_id for t in queue.waiting()]) == everyone
    for group, prefs in groups:
        for t in group:
            assert t.preferences.merge(prefs) == prefs
    # Nobody left waiting could have formed a table (brute force over every four).
    for four in itertools.combinations(queue.waiting(), 4):
        prefs: Preferences | None = four[0].preferences
        for t in four[1:]:
            prefs = None if prefs is None else prefs.merge(t.preferences)
        assert prefs is None, f"{[t.account_id for t in four]} could have played"


def _repeats(four: tuple[Ticket, ...]) -> int:
    pairs = itertools.combinations(four, 2)
    return sum(b.account_id in a.recent or a.account_id in b.recent for a, b in pairs)


def _merged(four: tuple[Ticket, ...]) -> Preferences | None:
    prefs: Preferences | None = four[0].preferences
    for t in four[1:]:
        prefs = None if prefs is None else prefs.merge(t.preferences)
    return prefs


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([None, 20, 30]), st.sampled_from([None, 3])), min_size=4, max_size=9),
    st.sets(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=12),
)
def test_the_first_table_is_the_oldest_players_four_with_fewest_repeat_pairs(
    wishes: list[tuple[int | None, int | None]], pairs: set[tuple[int, int]]
) -> None:
    """Brute force over every four: the first table seats the oldest player who can play, with the
    compatible partners that repeat the fewest recent pairings, the earliest arrivals among equals."""
    recent: dict[int, set[str]] = {i: set() for i in range(len(wishes))}
    for a, b in pairs:
        if a != b and a < len(wishes) and b < len(wishes):
            recent[a].add(f"p{b}")
    tickets = [
        Ticket(f"p{i}", float(i), Preferences(*w), recent=frozenset(recent[i])) for i, w in enumerate(wishes)
    ]
    queue = Queue()
    for ticket in tickets:
        queue.join(ticket)
    groups = queue.match(now=10.0)
    fours = [f for f in itertools.combinations(tickets, 4) if _merged(f) is not None]
    if not fours:
        assert groups == []
        return
    oldest = min(f[0].joined_at for f in fours)
    mine = [f for f in fours if f[0].joined_at == oldest]
    expected = min(mine, key=lambda f: (_repeats(f), [t.joined_at for t in f]))
    group, prefs = groups[0]
    assert group == list(expected) and prefs == _merged(expected)
