"""The cluster bus authenticated (issue 33, finding 7; niugui/server/cluster/seal.py): a node acts only on
Redis messages sealed with the cluster's secret, for the channel they came on, fresh and not replayed;
anything else is dropped whole and counted. The attack it stops: one message on the owner's channel
naming a victim's (public) account id made the node act as that account (a ``stand`` unseated them)."""

from __future__ import annotations

import os
import re

import httpx
import pytest
from server_harness import Player, Server

from niugui.server.cluster.bus import Forwarded, encode
from niugui.server.cluster.seal import WINDOW, Opener, Sealer, Unsealed
from niugui.server.cluster.settings import SECRET_ENV, read_secret
from niugui.server.protocol import Stand

from .cluster_harness import Cluster

KEY = b"k" * 32


def test_a_sealed_message_opens_once_on_its_channel_within_the_window() -> None:
    sealer, opener = Sealer(KEY, "n1"), Opener(KEY)
    first = sealer.seal("p:to:n2", "a\nb", now=100.0)
    second = sealer.seal("p:to:n2", "c", now=100.5)
    assert opener.open("p:to:n2", first, now=101.0) == "a\nb"
    assert opener.open("p:to:n2", second, now=101.0) == "c"
    head = first.partition("\n")[0]
    refusals = {
        "unsealed": ("p:to:n2", "a\nb"),
        "bad_mac": ("p:to:n2", f"{head}\nb\na"),  # the body changed under the seal
    }
    for reason, (channel, data) in refusals.items():
        with pytest.raises(Unsealed, match=rf"^{reason}$"):
            Opener(KEY).open(channel, data, now=101.0)
    with pytest.raises(Unsealed, match=r"^bad_mac$"):  # sealed for node 2, published to node 3
        Opener(KEY).open("p:to:n3", first, now=101.0)
    with pytest.raises(Unsealed, match=r"^bad_mac$"):  # another secret
        Opener(b"x" * 32).open("p:to:n2", first, now=101.0)
    for late in (100.0 + WINDOW + 1, 100.0 - WINDOW - 1):  # too old, or from the future
        with pytest.raises(Unsealed, match=r"^stale$"):
            Opener(KEY).open("p:to:n2", first, now=late)
    with pytest.raises(Unsealed, match=r"^replay$"):
        opener.open("p:to:n2", first, now=101.0)
    restarted = Sealer(KEY, "n1")  # the same node started again: its counter starts again, accepted
    assert opener.open("p:to:n2", restarted.seal("p:to:n2", "d", now=102.0), now=102.0) == "d"


def test_a_cluster_needs_a_secret_long_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SECRET_ENV, raising=False)
    with pytest.raises(ValueError, match="needs a shared secret"):
        read_secret(None)
    monkeypatch.setenv(SECRET_ENV, "too short")
    with pytest.raises(ValueError, match="at least 16 bytes"):
        read_secret(None)
    monkeypatch.setenv(SECRET_ENV, " sixteen bytes at least \n")
    assert read_secret(None) == b"sixteen bytes at least"


def _dropped(node: Server) -> dict[str, float]:
    text = httpx.get(node.url + "/metrics", timeout=10).text
    found = re.findall(r'^niugui_cluster_bus_dropped_total\{reason="(\w+)"\} (\S+)$', text, re.M)
    return {reason: float(count) for reason, count in found}


def test_a_forged_message_naming_a_victim_does_nothing(cluster: Cluster) -> None:
    (node,) = cluster.start(1)
    victim = Player(node, "受害者")
    table = victim.ok("create_table", settings={"name": "桌"})["data"]["table"]["id"]
    victim.ok("sit", table=table, seat=0)
    channel = f"{cluster.prefix}:to:n0"
    line = encode(  # what the attack sent: the victim's public account id, a made-up connection
        Forwarded(
            id="f1",
            origin="n9",
            conn="forged",
            account=victim.account_id,
            nickname="受害者",
            message=Stand(type="stand", id="s1", table=table),
            table=table,
        )
    )
    cluster.redis.publish(channel, line)  # unsealed
    cluster.redis.publish(channel, Sealer(b"a guessed secret!", "n9").seal(channel, line))
    cluster.wait(lambda: _dropped(node) == {"unsealed": 1.0, "bad_mac": 1.0}, "both forgeries dropped")
    victim.ok("ping")  # a round trip: any frame the forgeries caused would have come before its ack
    assert not [m for m in victim.received if m["type"] == "event" and m["event"]["kind"] == "seat_left"]
    assert victim.states[table]["seats"][0]["player"] is not None

    genuine = Sealer(os.environ[SECRET_ENV].encode(), "n9").seal(channel, line)
    cluster.redis.publish(channel, genuine)  # the control: with the secret, the same line does act
    victim.wait_event("seat_left", seat=0)
    victim.ok("sit", table=table, seat=0)
    cluster.redis.publish(channel, genuine)  # replayed
    cluster.wait(lambda: _dropped(node).get("replay") == 1.0, "the replay dropped")
    victim.ok("ping")
    left = [m for m in victim.received if m["type"] == "event" and m["event"]["kind"] == "seat_left"]
    assert len(left) == 1
    victim.close()
