"""The cluster bus's messages (niugui/server/cluster/bus.py): every kind survives the wire as the model
it was; a line that is no bus message is refused with a log line while the rest of its batch is still
delivered; a table's frame is relayed with its table and seq beside the text, never read out of it."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from redis.asyncio import Redis
from server_harness import run_async

from niugui.server.cluster.bus import (
    Answered,
    Bus,
    Bye,
    Forwarded,
    FrameHead,
    Free,
    Notice,
    Owner,
    Refusal,
    Refused,
    decode,
    encode,
)
from niugui.server.cluster.node import RemoteClient
from niugui.server.cluster.seal import Sealer
from niugui.server.protocol import CreateTable, LobbyData, Play, SeatData, TableSettings, Watch
from niugui.server.tables.fanout import table_frame

from .conftest import redis_url

SECRET = b"the cluster's secret, for tests"

NOTICES: list[Notice] = [
    Forwarded(
        id="r1",
        origin="n0",
        conn="c1",
        account="a1",
        nickname="阿丽",
        bot=True,
        message=Watch(type="watch", id="w1", table="t1", last_seq=4, code="ABCD"),
        table="t1",
    ),
    Forwarded(
        id="r2",
        origin="n0",
        conn="c1",
        account="a1",
        nickname="b",
        message=CreateTable(type="create_table", id="w2", settings=TableSettings(name="桌")),
        table="t2",
    ),
    Forwarded(
        id="r3",
        origin="n0",
        conn="c1",
        account="a1",
        nickname="b",
        message=Play(type="play", id="p", table="t", cards=["S3"]),
    ),
    Answered(id="r1", seq=12, data=SeatData(seat=2)),
    Answered(id="r2", data=LobbyData(tables=[], total=0)),
    Answered(id="r3"),
    Refused(id="r1", code="illegal_move", message="not your turn", rule="R7"),
    Bye(origin="n0", conn="c1"),
    Owner(table="t1", node="n1"),
    Free(tables=["t1", "t2"], node="n1"),
]


@pytest.mark.parametrize("message", NOTICES, ids=lambda m: m.kind)
def test_every_bus_message_comes_back_as_the_model_it_was(message: Notice) -> None:
    line = encode(message)
    assert "\n" not in line and "\t" not in line
    assert decode(line) == message
    assert type(decode(line)) is type(message)


def test_a_frame_comes_back_with_its_head_and_its_text_untouched() -> None:
    text = '{"type":"event","chat":"tab\tinside\\" and 牌"}'  # after the first tab: the frame's own
    for head in (
        FrameHead(conn="c1", table="t1", seq=9),
        FrameHead(conn="c1", table="t1", seq=9, snapshot=True),
    ):
        assert decode(encode(head, text)) == (head, text)
    plain = FrameHead(conn="c2")  # an invitation: of no table's sequence
    assert decode(encode(plain, "{}")) == (plain, "{}")


BAD = [
    ("not json", "Invalid JSON"),
    ("[1, 2]", "Input should be an object"),
    ('{"kind":"gossip","node":"n1"}', "does not match any of the expected tags"),
    ('{"kind":"owner","table":"t1"}', "owner: node: Field required"),
    ('{"kind":"owner","table":"t1","node":"n1","extra":1}', "owner: extra: Extra inputs are not permitted"),
    (
        '{"kind":"request","id":"r","origin":"n","conn":"c","account":"a","nickname":"n","message":{"type":"fly"}}',
        "request: message",
    ),
    ('{"kind":"frame","conn":"c1","table":"t1","seq":"nine"}\t{}', "frame: seq"),
    ('{"kind":"frame","conn":"c1","table":"t1","seq":9}', "a frame's head without its text"),
    ('{"kind":"owner","table":"t1","node":"n1"}\t{}', "owner with a frame's text"),
]


@pytest.mark.parametrize(("line", "reason"), BAD, ids=[reason for _, reason in BAD])
def test_a_line_that_is_no_bus_message_is_refused_saying_why(line: str, reason: str) -> None:
    with pytest.raises(Refusal) as refused:
        decode(line)
    assert str(refused.value).startswith("not a bus message: ") and reason in str(refused.value)


def test_a_refused_line_is_logged_and_the_rest_of_its_batch_delivered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    frames: list[tuple[FrameHead, str]] = []
    notices: list[Notice] = []

    def failing(message: Notice) -> None:
        notices.append(message)
        if isinstance(message, Bye):
            raise RuntimeError("a bug in the handler")

    bus = Bus(Redis(), "p", "n1", lambda head, text: frames.append((head, text)), failing, secret=SECRET)
    head = FrameHead(conn="c1", table="t1", seq=1)
    batch = [encode(Owner(table="t1", node="n2"))] + [line for line, _ in BAD]
    batch += [
        encode(Bye(origin="n2", conn="c9")),
        encode(head, '{"a":1}'),
        encode(Free(tables=[], node="n2")),
    ]
    with caplog.at_level(logging.WARNING, logger="niugui.server"):
        bus.dispatch("\n".join(batch))
    assert notices == [Owner(table="t1", node="n2"), Bye(origin="n2", conn="c9"), Free(tables=[], node="n2")]
    assert frames == [(head, '{"a":1}')]
    assert bus.refused == len(BAD)
    refusals = [r for r in caplog.records if r.getMessage() == "a cluster message was refused"]
    assert [reason in r.fields["reason"] for r, (_, reason) in zip(refusals, BAD, strict=True)] == [
        True
    ] * len(BAD)
    assert any(r.getMessage() == "a cluster message failed" and r.exc_info for r in caplog.records)


class Relay:
    def __init__(self) -> None:
        self.sent: list[tuple[str, FrameHead, str]] = []

    def frame(self, node_id: str, head: FrameHead, frame: str) -> None:
        self.sent.append((node_id, head, frame))


def test_a_remote_connection_relays_a_table_frame_with_its_table_and_seq_beside_it() -> None:
    relay: Any = Relay()
    client = RemoteClient(relay, "n2", "c7", "a1", "阿丽")
    client.send(table_frame('{"not":"parsed"}', "t1", 41))  # the text says nothing of table or seq
    client.send(table_frame('{"nor":"this"}', "t1", 41, snapshot=True))
    client.send('{"type":"invitation"}')
    assert relay.sent == [
        ("n2", FrameHead(conn="c7", table="t1", seq=41), '{"not":"parsed"}'),
        ("n2", FrameHead(conn="c7", table="t1", seq=41, snapshot=True), '{"nor":"this"}'),
        ("n2", FrameHead(conn="c7"), '{"type":"invitation"}'),
    ]


def test_messages_cross_a_real_redis_in_order_and_garbage_does_not_stop_the_listener(
    redis_prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def main() -> tuple[list[object], int]:
        got: list[object] = []
        done = asyncio.Event()

        def notice(message: Notice) -> None:
            got.append(message)
            if message == NOTICES[-1]:
                done.set()

        url = redis_url()
        sender = Bus(
            Redis.from_url(url), redis_prefix, "n0", lambda h, t: None, lambda m: None, secret=SECRET
        )
        receiver = Bus(
            Redis.from_url(url), redis_prefix, "n1", lambda h, t: got.append((h, t)), notice, secret=SECRET
        )
        await sender.start()
        await receiver.start()
        try:
            channel = receiver.channel("n1")
            await sender.redis.publish(channel, encode(Owner(table="unsealed", node="n0")))  # dropped
            sealed = Sealer(SECRET, "n0").seal(channel, "garbage\n" + encode(Owner(table="x", node="n0")))
            await sender.redis.publish(channel, sealed)
            sender.frame("n1", FrameHead(conn="c1", table="t1", seq=3), '{"type":"event"}')
            for message in NOTICES:
                sender.send("n1", message)
            await sender.drain()
            await asyncio.wait_for(done.wait(), 30)
        finally:
            await sender.close()
            await receiver.close()
            await sender.redis.aclose()
            await receiver.redis.aclose()
        assert receiver.dropped == 1
        return got, receiver.refused

    with caplog.at_level(logging.WARNING, logger="niugui.server"):
        got, refused = run_async(main())
    assert got == [
        Owner(table="x", node="n0"),
        (FrameHead(conn="c1", table="t1", seq=3), '{"type":"event"}'),
        *NOTICES,
    ]
    assert refused == 1
    assert any(r.getMessage() == "a cluster message was refused" for r in caplog.records)


def test_close_returns_within_its_bound_when_publishing_never_ends(
    redis_prefix: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A stopping node whose publishing hangs still stops: the bus waits ``CLOSE_SECONDS`` for its
    queue to be published, says so, and closes."""
    from niugui.server.cluster import bus as bus_module

    monkeypatch.setattr(bus_module, "CLOSE_SECONDS", 0.2)

    class Stuck:  # a pipeline whose execute never returns (a Redis that stopped answering)
        async def __aenter__(self) -> Stuck:
            return self

        async def __aexit__(self, *exc: object) -> None:
            return None

        def publish(self, channel: str, data: str) -> None:
            pass

        async def execute(self) -> None:
            await asyncio.Event().wait()

    async def main() -> None:
        redis = Redis.from_url(redis_url())
        monkeypatch.setattr(redis, "pipeline", lambda transaction=False: Stuck())
        bus = Bus(redis, redis_prefix, "n1", lambda head, text: None, lambda message: None, secret=SECRET)
        await bus.start()
        bus.send("*", Free(tables=["t1"], node="n1"))
        try:
            await asyncio.wait_for(bus.close(), 30)  # without the bound, close waits for ever
        finally:
            await redis.aclose()

    with caplog.at_level(logging.WARNING, logger="niugui.server"):
        run_async(main())
    assert any(r.getMessage() == "cluster messages not published before closing" for r in caplog.records)
