"""Issue 28, point 3: 再来一局 after quick play. Four people play a quick-play game; each asks
(``rematch``) and is told who has asked; when the last asks, the same four sit together at a new
quick-play table. One person with bots gets a new table with bots at once. Refusals: before the
game is over, and from someone who did not play it. Real server, real WebSocket clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_harness import Player, Server, drive, game_over
from test_community_quick_play import dealt, seated, seats_of, take_bots


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data: Path = tmp_path_factory.mktemp("rematch") / "data"
    srv = Server(data, "--rate-limit", "50", "--community", "bots_after=1").start()
    yield srv
    srv.stop()


def rematch_message(table: str) -> Any:
    return lambda m: m["type"] == "rematch" and m["table"] == table


def test_the_same_four_sit_together_again_when_all_ask(server: Server) -> None:
    players = [Player(server, f"again{n}") for n in range(4)]
    for p in players:
        p.ok("quick_play", games=1)
    table = ""
    for p in players:
        table = seated(p)["table"]
    early = players[0].request("rematch", table=table)
    assert early["type"] == "error" and early["code"] == "bad_state"  # the game is still on
    outsider = Player(server, "outsider")
    outsider.ok("watch", table=table)
    drive(players, table, game_over(players[0], table))
    for p in players:
        drive(players, table, game_over(p, table))
    refused = outsider.request("rematch", table=table)
    assert refused["type"] == "error" and refused["code"] == "forbidden"
    seats = {p.account_id: p.states[table]["you"] for p in players}
    for n, p in enumerate(players[:3]):
        p.ok("rematch", table=table)
        for q in players:  # every one of the four hears who has asked
            told = q.wait(lambda m, k=n: rematch_message(table)(m) and len(m["asked"]) == k + 1)
            assert sorted(told["people"]) == [0, 1, 2, 3]
            assert set(told["asked"]) == {seats[r.account_id] for r in players[: n + 1]}
        assert not any(m["type"] == "queue" and m["status"] == "seated" and m["table"] != table
                       for q in players for m in q.received)
    players[3].ok("rematch", table=table)
    again = {p.account_id: seated(p) for p in players}
    new_tables = {m["table"] for m in again.values()}
    assert len(new_tables) == 1 and table not in new_tables
    new = new_tables.pop()
    for p in players:
        dealt(p)
        assert {q["id"] for q in seats_of(p, new) if q} == {q.account_id for q in players}
        assert p.states[new]["settings"]["games"] == 1
    for p in (*players, outsider):
        p.close()


def test_one_person_with_bots_plays_again_with_bots_at_once(server: Server) -> None:
    alone = Player(server, "again-alone")
    alone.ok("quick_play", games=1)
    table = take_bots(alone)["table"]
    drive([alone], table, game_over(alone, table))
    alone.ok("rematch", table=table)
    assert alone.wait(rematch_message(table))["asked"] == [alone.states[table]["you"]]
    new = seated(alone)["table"]
    assert new != table
    dealt(alone)
    assert sum(1 for p in seats_of(alone, new) if p and p.get("bot")) == 3
    alone.close()
