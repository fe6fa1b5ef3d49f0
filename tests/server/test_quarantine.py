"""Issue 15, finding 7: one table whose stored events do not replay no longer stops the server from
starting — it is quarantined (kept out of play, logged, in /metrics and /healthz), every other table
starts as usual."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
from server_harness import Player, Server


def test_a_table_whose_events_do_not_replay_is_quarantined_and_the_others_start(tmp_path: Path) -> None:
    server = Server(tmp_path / "data").start()
    try:
        alice = Player(server, "alice")
        broken = alice.ok("create_table", settings={"name": "broken"})["data"]["table"]["id"]
        alice.ok("sit", table=broken, seat=0)
        alice.ok("fill_bots", table=broken)
        alice.wait_event("deal")
        healthy = alice.ok("create_table", settings={"name": "healthy"})["data"]["table"]["id"]
        alice.ok("sit", table=healthy, seat=2)
        alice.close()
    finally:
        server.stop()
    with sqlite3.connect(tmp_path / "data" / "niugui.sqlite3") as db:  # one event cut short
        (seq,) = db.execute(
            "SELECT max(seq) FROM table_events WHERE table_id = ? AND kind = 'deal'", (broken,)
        ).fetchone()
        db.execute(
            "UPDATE table_events SET payload = substr(payload, 1, 20) WHERE table_id = ? AND seq = ?",
            (broken, seq),
        )
    server.start()
    try:
        health = httpx.get(server.url + "/healthz", timeout=10).json()
        assert health == {"status": "degraded", "quarantined": [broken]}
        metrics = httpx.get(server.url + "/metrics", timeout=10).text
        assert "niugui_tables_quarantined 1.0" in metrics
        bob = Player(server, "bob")
        bob.ok("sit", table=healthy, seat=0)  # the healthy table is in play as before
        refused = bob.request("watch", table=broken)
        assert refused["code"] == "not_found" and "could not be restored" in refused["message"]
        assert "quarantined" in server.log.read_text()
        bob.close()
    finally:
        server.stop()
