"""The cluster's lobby: a public table made on one node is listed by another within about a second
(the index's write and read ticks, a quarter of a second each, and the shared page's cache of
``lobby_seconds``); a private table, and any join code, never reach the index."""

from __future__ import annotations

import json
import time

from server_harness import Player

from .cluster_harness import Cluster

LISTED_WITHIN = 2.0
"""Seconds: 0.5 s of the index's ticks, 1 s of the lobby page's cache, and room for a loaded machine."""


def test_a_public_table_made_on_one_node_is_listed_by_another_within_a_second(cluster: Cluster) -> None:
    nodes = cluster.start(2)
    maker = Player(nodes[0], "maker")
    secret = maker.ok("create_table", settings={"name": "secret", "private": True})["data"]["table"]
    made = time.monotonic()
    table = maker.ok("create_table", settings={"name": "public"})["data"]["table"]["id"]
    owner = cluster.owner(table)
    other = next(n for n in nodes if f"n{nodes.index(n)}" != owner)

    def listed() -> bool:
        return table in {t["id"] for t in other.get("/api/tables")["tables"]}

    cluster.wait(listed, "the table listed by the other node", timeout=30)
    elapsed = time.monotonic() - made
    assert elapsed < LISTED_WITHIN, f"listed {elapsed:.2f} s after it was made"
    index = cluster.redis.hgetall(f"{cluster.prefix}:lobby:summary")
    assert secret["id"] not in index and table in index
    assert all(json.loads(v)["t"]["code"] is None for v in index.values())  # no join code in Redis
    listed_ids = {t["id"] for n in nodes for t in n.get("/api/tables")["tables"]}
    assert secret["id"] not in listed_ids
    maker.close()
