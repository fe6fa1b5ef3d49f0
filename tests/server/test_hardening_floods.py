"""Issue 33, findings 1, 2, 4 and 12 (connection rate): floods from one address that slowed everyone.
Each test is named after its finding; the attack figures are in docs/security.md."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from niugui.server import matchmaking
from niugui.server.config import Limits
from niugui.server.fairuse import FairUse
from niugui.server.handlers import ROUTES
from niugui.server.limits import Exempt
from niugui.server.matchmaking import Preferences, Queue, Ticket
from niugui.server.metrics import Metrics
from niugui.server.tables import Fault


def _never_fitting(turns: int, games: int) -> Queue:
    """The red team's queue: each guest names a turn timer or a game count nobody else names, so any
    two of them fit (one says the timer, the other the games) and no three do."""
    queue = Queue()
    for i in range(turns):
        queue.join(Ticket(f"t{i}", float(i), Preferences(turn_seconds=5 + i)))
    for i in range(games):
        queue.join(Ticket(f"g{i}", float(turns + i), Preferences(games=1 + i)))
    assert queue.match(now=1e6) == []
    return queue


def _work_of_one_join(queue: Queue, monkeypatch: pytest.MonkeyPatch, who: str, prefs: Preferences) -> int:
    """Preferences merged and pairs compared while matching one (re-)join."""
    work = {"n": 0}
    merge, met = Preferences.merge, matchmaking._met

    def counted_merge(self: Preferences, other: Preferences) -> Preferences | None:
        work["n"] += 1
        return merge(self, other)

    def counted_met(a: Ticket, b: Ticket) -> bool:
        work["n"] += 1
        return met(a, b)

    with monkeypatch.context() as patch:
        patch.setattr(Preferences, "merge", counted_merge)
        patch.setattr(matchmaking, "_met", counted_met)
        queue.join(Ticket(who, 1e5, prefs))
        assert queue.match(now=1e6) == []
    return work["n"]


@pytest.mark.parametrize("turns", [43, 116])
def test_finding_1_one_quick_play_costs_the_matcher_the_same_whatever_the_queue_holds(
    turns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """59 guests (43 + 16) whose preferences never fit made each ``quick_play`` search 47 ms (a
    depth-first search over every waiting player, for each of them); 132 made it ~150 ms. The index
    by preference looks at a few buckets: the work of a re-join does not grow with the queue."""
    queue = _never_fitting(turns, 16)
    rejoin = _work_of_one_join(queue, monkeypatch, "t3", Preferences(turn_seconds=8))
    anyone = _work_of_one_join(queue, monkeypatch, "newcomer", Preferences())
    assert rejoin <= 20 and anyone <= 20, (rejoin, anyone)  # before: 10⁴–10⁵ at these sizes


def test_finding_1_the_index_still_seats_every_four_that_fits() -> None:
    queue = _never_fitting(43, 16)
    queue.join(Ticket("x", 100.0, Preferences(turn_seconds=5)))  # fits t0, and each g alone
    groups = queue.match(now=1e6)
    assert groups == []  # g0 and g1 name different game counts: still no four
    queue.join(Ticket("y", 101.0, Preferences(turn_seconds=5, games=1)))
    (group, prefs), *more = queue.match(now=1e6)
    assert not more and sorted(t.account_id for t in group) == ["g0", "t0", "x", "y"]
    assert prefs == Preferences(turn_seconds=5, games=1)


def _connection(account: str, address: str) -> Any:
    return SimpleNamespace(account_id=account, address=address)


def test_finding_1_quick_play_is_charged_to_the_account_and_the_address() -> None:
    """40 re-joins a second from one address ran the matcher 40 times a second: quick-play requests
    now spend the account's (5 at once, 1/s) and the address's (20 at once, 4/s) budget."""
    assert ROUTES.get("quick_play") is not None and ROUTES.get("quick_play").limit == "quick"  # type: ignore[union-attr]
    assert ROUTES.get("queue_bots").limit == "quick"  # type: ignore[union-attr]
    fair = FairUse(Limits(), Exempt(), Metrics())
    one = _connection("a", "10.0.0.1")
    for _ in range(5):
        fair.charge_quick(one)
    with pytest.raises(Fault) as refused:
        fair.charge_quick(one)
    assert refused.value.code == "rate_limited"
    fair.refund_quick(one)  # a request refused for another reason costs nothing
    fair.charge_quick(one)
    for i in range(15):  # the address's other accounts: 20 in all
        fair.charge_quick(_connection(f"b{i}", "10.0.0.1"))
    with pytest.raises(Fault):
        fair.charge_quick(_connection("c", "10.0.0.1"))
    fair.charge_quick(_connection("c", "10.0.0.2"))  # another address has its own
