"""Issue 15, finding 6: another process holding the SQLite database locked freezes nobody.

The red team held a write lock on the database file for 15 s and every client's ping took ~10 s. Now
the event writer waits for the lock in its own thread (trying again after the store's short busy
timeout), the event loop never waits on the database, and an HTTP request that must write answers
503 rather than hanging or failing with a 500. The action made during the lock is stored and
delivered once the lock is gone: nothing is refused, nothing is lost, nothing is applied twice.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx
from server_harness import WAIT, Player, Server, drive, eventually, game_over, metric, my_turn, wait_until


def test_a_database_locked_by_another_process_delays_only_the_writes(tmp_path: Path) -> None:
    server = Server(tmp_path / "data").start()
    try:
        alice = Player(server, "alice")
        table = alice.ok("create_table", settings={"name": "locked", "turn_seconds": 600})["data"]["table"][
            "id"
        ]
        alice.ok("sit", table=table, seat=0)
        alice.ok("fill_bots", table=table)
        wait_until([alice], lambda: my_turn(alice, table), "alice's first turn")
        view = alice.views[table]
        assert view is not None
        seq_before = alice.last_seq[table]

        lock = sqlite3.connect(server.data / "niugui.sqlite3", isolation_level=None, timeout=WAIT)
        lock.execute("BEGIN IMMEDIATE")  # another process's write lock, as the red team held it
        try:
            play_id = "locked-play"
            action = (
                {"type": "play", "cards": view["legal_plays"][0]} if view["legal_plays"] else {"type": "pass"}
            )
            alice.send_raw(json.dumps({**action, "id": play_id, "table": table}))
            eventually(
                lambda: metric(server, "niugui_store_locked_retries_total") >= 2,
                "the event writer to find the database locked (and try again)",
            )
            # The lock is still held (by this test): the event loop answers anyway.
            assert alice.request("ping")["type"] == "ack"
            assert httpx.get(server.url + "/healthz", timeout=WAIT).json()["status"] == "ok"
            assert httpx.get(server.url + "/api/tables", timeout=WAIT).status_code == 200
            assert alice.request("list_tables")["type"] == "ack"
            # A request that must write answers "busy, try again", not a 500 and not a hang.
            busy = httpx.post(server.url + "/api/guest", json={"nickname": "bob"}, timeout=WAIT)
            assert busy.status_code == 503, busy.text
            assert busy.headers["Retry-After"] == "2"
            # The play is neither answered nor broadcast before it is stored.
            assert not [m for m in alice.pending if m.get("id") == play_id]
            assert alice.last_seq[table] == seq_before
        finally:
            lock.rollback()
            lock.close()

        answer = alice.wait(
            lambda m: m.get("id") == play_id, what="the answer to the play made during the lock"
        )
        assert answer["type"] == "ack", answer
        played = [m for m in alice.received if m["type"] == "event" and m["seq"] == seq_before + 1]
        assert [m["event"]["kind"] for m in played] == [action["type"]] and played[0]["event"]["seat"] == 0
        drive([alice], table, game_over(alice, table))
        stored = [m for m in alice.received if m["type"] == "event" and m["event"]["kind"] == "play"]
        assert len({m["seq"] for m in stored}) == len(stored), "no event delivered twice"
        assert server.guest("carol")["token"]  # writes work again
    finally:
        server.stop()
