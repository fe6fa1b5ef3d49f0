"""Issue 15, findings 4 and 12: a private table's data is for its insiders (players, creator, holders
of the code) only, and its join code can be neither tested through other requests nor brute-forced."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from server_harness import Player, Server, call


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("privacy") / "data", "--limit", "code_guesses_per_minute=6").start()
    yield srv
    srv.stop()


def finished_private_game(host: Player) -> tuple[str, str, int]:
    """A private table whose one game host ended by standing up (an escape): (table, code, game id)."""
    ack = host.ok("create_table", settings={"private": True, "games": 1})
    table, code = ack["data"]["table"]["id"], ack["data"]["table"]["code"]
    host.ok("sit", table=table, seat=0)
    host.ok("fill_bots", table=table)
    deal = host.wait_event("deal")
    host.ok("stand", table=table)
    host.wait_event("game_over")
    return table, code, int(deal["event"]["game_id"])


def test_a_private_games_record_ledger_and_history_are_for_insiders(server: Server) -> None:
    host, outsider = Player(server, "host"), Player(server, "nosy")
    table, code, game_id = finished_private_game(host)
    record, ledger = f"/api/games/{game_id}/record", f"/api/tables/{table}/ledger"
    replay = f"/api/games/{game_id}/replay"
    for path in (record, ledger, replay):
        assert call(server, "GET", path).status_code == 404, path  # nobody signed in
        assert call(server, "GET", path, outsider).status_code == 404, path  # signed in, not a player
        assert call(server, "GET", path, host).status_code == 200, path  # its player
        sep = "&" if "?" in path else "?"
        assert call(server, "GET", f"{path}{sep}code={code}").status_code == 200, path  # the code's holder
        assert call(server, "GET", f"{path}{sep}code=wrong1").status_code == 404, path
    assert call(server, "GET", record, host).json()["meta"]["table"] == table
    mine = f"/api/players/{host.account_id}/games"
    assert [g["game_id"] for g in call(server, "GET", mine, host).json()["games"]] == [game_id]
    assert call(server, "GET", mine, outsider).json()["games"] == []  # not through the leaderboard either
    assert call(server, "GET", mine).json()["games"] == []
    host.close()
    outsider.close()


def test_sequential_record_ids_give_nothing_private(server: Server) -> None:
    host, walker = Player(server, "walker-host"), Player(server, "walker")
    _, _, game_id = finished_private_game(host)
    seen = [call(server, "GET", f"/api/games/{n}/record", walker).status_code for n in range(1, game_id + 3)]
    assert 200 not in seen and set(seen) == {404}
    host.close()
    walker.close()


OTHER_REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("stand", {}),
    ("ready", {}),
    ("leave", {}),
    ("autoplay", {"on": True}),
    ("fill_bots", {}),
    ("update_settings", {"settings": {"private": True}}),
    ("play", {"cards": ["D4"]}),
    ("pass", {}),
]


def test_a_join_code_cannot_be_tested_through_other_requests(server: Server) -> None:
    """Before: a real code answered `forbidden`, a wrong one `not_found` — an oracle for codes."""
    host, eve = Player(server, "oracle-host"), Player(server, "oracle")
    ack = host.ok("create_table", settings={"private": True})
    table, code = ack["data"]["table"]["id"], ack["data"]["table"]["code"]
    for kind, fields in OTHER_REQUESTS:
        real = eve.request(kind, table=code, **fields)
        wrong = eve.request(kind, table="zzzzzz", **fields)
        by_id = eve.request(kind, table=table, **fields)
        assert real["code"] == wrong["code"] == by_id["code"] == "not_found", (kind, real, wrong, by_id)
        assert real["message"].replace(code, "zzzzzz") == wrong["message"], kind
    assert eve.ok("watch", table=code)["data"] == {"seat": None}  # watch and sit do take the code
    host.close()
    eve.close()


def test_wrong_join_codes_are_throttled(server: Server) -> None:
    host, eve = Player(server, "brute-host"), Player(server, "brute")
    ack = host.ok("create_table", settings={"private": True})
    table, code = ack["data"]["table"]["id"], ack["data"]["table"]["code"]
    answers = [eve.request("watch", table=f"zz{n:04d}")["code"] for n in range(8)]
    assert answers[:6] == ["not_found"] * 6 and answers[6:] == ["rate_limited"] * 2, answers
    assert eve.request("sit", table=table, code=code)["code"] == "rate_limited"  # even the right one, now
    other = Player(server, "innocent")  # another account (same address: within its own allowance)
    assert other.request("watch", table="zzzzzz")["code"] in ("not_found", "rate_limited")
    host.close()
    eve.close()
    other.close()
