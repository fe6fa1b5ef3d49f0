"""Issue 30, duplicate events with real clients: three entrants play the same two boards of the daily
challenge with different play. Each board is the same deal, 翻牌 and seat for all (the committed
board, checked against its revealed statement); the bots answer the same to the same plays; each
board's matchpoints add up to n(n−1)/2 and the standings' percentages follow from the scores; and
nothing of a board — cards, the commitment's reveal, others' results — reaches an entrant who has not
finished it, checked after every action."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import Player, Server, drive, game_over

from niugui.server.events.boards import verify_board
from niugui.server.events.matchpoints import matchpoints

Strategy = Callable[[dict[str, Any]], tuple[str, list[str] | None]]


def weakest(view: dict[str, Any]) -> tuple[str, list[str] | None]:
    return ("play", view["legal_plays"][0]) if view["legal_plays"] else ("pass", None)


def strongest(view: dict[str, Any]) -> tuple[str, list[str] | None]:
    return ("play", view["legal_plays"][-1]) if view["legal_plays"] else ("pass", None)


def passer(view: dict[str, Any]) -> tuple[str, list[str] | None]:
    return ("pass", None) if view["can_pass"] else ("play", view["legal_plays"][0])


@pytest.fixture(params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    db = None if request.param == "sqlite" else request.getfixturevalue("pg_schema_url")
    # after every action the test reads the event's page for each entrant, from one address and new
    # connections: faster than a person's requests and openings on a quiet machine. Loopback exempt from
    # the address's limits, the accounts' raised: those limits are not what is tested here
    fast = ["--rate-limit", "1000", "--exempt", "127.0.0.1"]
    fast += ["--limit", "http_account_rate=5000", "--limit", "http_account_burst=5000"]
    srv = Server(tmp_path / "data", *fast, "--community", "daily_boards=2", db=db).start()
    yield srv
    srv.stop()


def page(server: Server, event: str, who: Player) -> dict[str, Any]:
    reply = httpx.get(
        f"{server.url}/api/events/{event}", headers={"Authorization": f"Bearer {who.token}"}, timeout=10
    )
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    return body


def assert_nothing_of(board: int, server: Server, event: str, viewer: Player) -> None:
    """``viewer`` (who has not finished ``board``) is shown nothing of it but its commitment."""
    shown = page(server, event, viewer)["boards"][board - 1]
    assert set(shown) <= {"board", "commitment", "played", "mine"}, shown
    assert "mine" not in shown or shown["mine"]["status"] == "playing", shown
    assert not any(
        board == line["board"] for line in page(server, event, viewer)["boards"] if "results" in line
    )


def play_board(
    server: Server,
    event: str,
    player: Player,
    strategy: Strategy,
    others: list[Player],
    done: dict[int, set[str]],
) -> dict[str, Any]:
    """``player`` plays its next board with ``strategy``; after each of its actions nobody who has not
    finished the board sees anything of it. What it saw of the board's table."""
    summary = player.ok("play_event", event=event)["data"]["table"]
    table = summary["id"]
    board = int(summary["name"].rsplit("·", 1)[1])
    blind = [o for o in others if o.account_id not in done.setdefault(board, set())]

    def act(p: Player, t: str) -> dict[str, Any]:
        kind, cards = strategy(p.views[t] or {})
        answer = p.request(kind, table=t, **({} if cards is None else {"cards": cards}))
        for viewer in blind:  # after every action, nothing of the board for those who did not finish it
            assert_nothing_of(board, server, event, viewer)
            viewer.pump()
            assert not [m for m in viewer.received if m.get("table") == table], "another's table reached them"
        own = page(server, event, p)["boards"][board - 1]  # the entrant: revealed once the board is done
        assert ("results" in own) == ("reveal" in own) == (own["mine"]["status"] == "done"), own
        return answer

    drive([player], table, game_over(player, table), act=act)
    done[board].add(player.account_id)
    events = [m["event"] for m in player.received if m["type"] == "event" and m.get("table") == table]
    deal_view = next(
        m["view"] for m in player.received if m.get("table") == table and (m["view"] or {}).get("hand")
    )
    return {
        "board": board,
        "table": table,
        "code": summary["code"],
        "seat": deal_view["seat"],
        "hand": sorted(deal_view["hand"]),
        "flip": next(e["card"] for e in events if e["kind"] == "flip"),
        "deck": next(e["reveal"]["deck"] for e in events if e["kind"] == "game_over"),
        "actions": [(e["seat"], e.get("play"), e.get("by")) for e in events if e["kind"] in ("play", "pass")],
    }


def test_three_entrants_two_boards(server: Server) -> None:
    daily = server.get("/api/events/daily")["today"]
    event = daily["event"]["id"]
    assert daily["event"]["settings"]["boards"] == 2 and daily["standings"] == []
    ann, bob, cy = Player(server, "安"), Player(server, "鲍"), Player(server, "丛")
    done: dict[int, set[str]] = {}
    plays = {  # board 1: ann and bob play alike (a tie), cy otherwise; board 2: all three differ
        ann.account_id: (weakest, weakest),
        bob.account_id: (weakest, strongest),
        cy.account_id: (strongest, passer),
    }
    seen: dict[str, list[dict[str, Any]]] = {}
    profile = f"/api/players/{ann.account_id}/profile"
    before = server.get(profile)
    for player in (ann, bob, cy):
        others = [p for p in (ann, bob, cy) if p is not player]
        seen[player.account_id] = [
            play_board(server, event, player, plays[player.account_id][n], others, done) for n in range(2)
        ]
        assert [s["board"] for s in seen[player.account_id]] == [1, 2]
        refused = player.request("play_event", event=event)
        assert refused["type"] == "error" and refused["code"] == "bad_state", refused

    final = page(server, event, ann)
    after = server.get(profile)  # a profile tells nothing of the boards' results either
    assert (after["modes"], after["upstream_rate"], after["recent"]) == (
        before["modes"],
        before["upstream_rate"],
        before["recent"],
    )
    for n in (1, 2):
        boards = [seen[p.account_id][n - 1] for p in (ann, bob, cy)]
        first = boards[0]
        for other in boards[1:]:  # the same deal, 翻牌 and seat for everyone
            assert (other["deck"], other["flip"], other["seat"], other["hand"]) == (
                first["deck"],
                first["flip"],
                first["seat"],
                first["hand"],
            )
        shown = final["boards"][n - 1]
        reveal = shown["reveal"]
        assert verify_board(shown["commitment"], reveal)  # the committed board is what was dealt
        assert (reveal["deck"], reveal["flip"], reveal["seat"]) == (
            first["deck"],
            first["flip"],
            first["seat"],
        )
        humans = [[a for a in b["actions"] if a[2] == "player"] for b in boards]
        ahead = [
            b["actions"][: b["actions"].index(next(a for a in b["actions"] if a[2] == "player"))]
            for b in boards
        ]
        assert ahead[0] == ahead[1] == ahead[2]  # the bots' plays before the entrant's first are the same
        assert len({str(h) for h in humans}) == (2 if n == 1 else 3)
        scores = {r["account_id"]: r["score"] for r in shown["results"]}
        assert sorted(scores) == sorted(p.account_id for p in (ann, bob, cy))
        assert {r["account_id"]: r["matchpoints"] for r in shown["results"]} == matchpoints(scores)
        assert sum(r["matchpoints"] for r in shown["results"]) == 3 * 2 / 2
        for r in shown["results"]:
            table = next(b for b in boards if b["table"] in r["replay"] or b["code"] in r["replay"])
            assert table["code"] in r["replay"]
            opened = httpx.get(  # to an entrant who finished the board (issue 30's replay rule)
                server.url + r["replay"], headers={"Authorization": f"Bearer {ann.token}"}, timeout=30
            )
            assert opened.status_code == 200 and opened.json()["seats"], opened.text
    # board 1: ann and bob played alike, so the bots answered alike: the same game, a tie
    assert seen[ann.account_id][0]["actions"] == seen[bob.account_id][0]["actions"]
    assert seen[ann.account_id][0]["actions"] != seen[cy.account_id][0]["actions"]
    by_id = {line["account_id"]: line for line in final["standings"]}
    for p in (ann, bob, cy):
        line = by_id[p.account_id]
        total = sum(
            next(r for r in final["boards"][n]["results"] if r["account_id"] == p.account_id)["matchpoints"]
            for n in (0, 1)
        )
        assert (line["boards"], line["matchpoints"], line["maximum"]) == (2, total, 4)
        assert line["percent"] == round(100 * total / 4, 2)
    assert [line["rank"] for line in final["standings"]] == [1, 2, 3]
    percents = [line["percent"] for line in final["standings"]]
    assert percents == sorted(percents, reverse=True)
    me = page(server, event, cy)["me"]
    assert me["boards_done"] == 2 and me["rank"] == by_id[cy.account_id]["rank"]


def test_an_event_table_takes_no_spectators(server: Server) -> None:
    event = server.get("/api/events/daily")["today"]["event"]["id"]
    ann, eve = Player(server, "安"), Player(server, "夏")
    table = ann.ok("play_event", event=event)["data"]["table"]
    refused = eve.request("watch", table=table["id"], code=table["code"])
    assert refused["type"] == "error" and refused["code"] == "forbidden", refused
    again = ann.ok("play_event", event=event)["data"]["table"]  # back at the board not finished
    assert again["id"] == table["id"]
    eve.pump()
    assert not [m for m in eve.received if m.get("table") == table["id"]]
