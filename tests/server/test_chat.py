"""Quick chat (issue 10, point 3): a ``chat`` message with a phrase id goes through the protocol models,
is relayed to every seat and to spectators as a ``chat`` event, is stored with the table's events,
is rate-limited per connection, and carries nothing but the seat and the phrase (no free text, no
card: R11, R12)."""

from __future__ import annotations

import json
import typing

from server_harness import Player, Server, wait_until

from niugui.server.protocol import PhraseId
from niugui.server.store import Store


def chats(player: Player, table: str) -> list[dict[str, object]]:
    return [
        m["event"]
        for m in player.received
        if m["type"] == "event" and m["table"] == table and m["event"]["kind"] == "chat"
    ]


def test_chat_reaches_every_seat_and_spectator_is_stored_and_rate_limited(shared_server: Server) -> None:
    seats = [Player(shared_server, f"chat{n}") for n in range(4)]
    watcher = Player(shared_server, "watcher")
    table = seats[0].ok("create_table", settings={"name": "chat"})["data"]["table"]["id"]
    for n, player in enumerate(seats):
        player.ok("sit", table=table, seat=n)
    watcher.ok("watch", table=table)
    wait_until(seats, lambda: all(p.views.get(table) for p in seats), "the deal")

    assert seats[2].ok("chat", table=table, phrase="together")["type"] == "ack"
    everyone = [*seats, watcher]
    wait_until(
        everyone, lambda: all(chats(p, table) for p in everyone), "the chat at every seat and the spectator"
    )
    for player in everyone:
        frame = next(m for m in player.received if m["type"] == "event" and m["event"]["kind"] == "chat")
        assert frame["event"] == {"kind": "chat", "seat": 2, "phrase": "together"}
        if player is not watcher:  # a seat's frame has its own hand only (R11), the spectator's none
            assert frame["view"]["hand"] == player.views[table]["hand"]
        else:
            assert frame["view"].get("hand") is None

    # no free text, nothing outside the list, and a spectator only reads
    refused = seats[1].request("chat", table=table, phrase="你好")
    assert refused["type"] == "error" and refused["code"] == "invalid_message"
    refused = seats[1].request("chat", table=table, phrase="nice", text="hello")
    assert refused["type"] == "error" and refused["code"] == "invalid_message"
    refused = watcher.request("chat", table=table, phrase="nice")
    assert refused["type"] == "error" and refused["code"] == "forbidden"

    # per connection: a burst of 3, then refused (the other seats are not held back)
    phrases = list(typing.get_args(PhraseId))
    answers = [seats[3].request("chat", table=table, phrase=phrases[n]) for n in range(5)]
    kinds = [a["type"] if a["type"] == "ack" else a["code"] for a in answers]
    assert kinds[:3] == ["ack"] * 3 and "rate_limited" in kinds[3:], kinds
    assert seats[0].ok("chat", table=table, phrase="hurry")["type"] == "ack"

    # stored with the table's events, in order with the rest
    store = Store(f"sqlite:///{shared_server.data / 'niugui.sqlite3'}")
    try:
        stored = [json.loads(e.payload) for e in store.events(table) if e.kind == "chat"]
    finally:
        store.close()
    assert stored[0] == {"kind": "chat", "seat": 2, "phrase": "together"}
    assert [e["seat"] for e in stored] == [2, 3, 3, 3, 0]
    for player in everyone:
        player.close()
