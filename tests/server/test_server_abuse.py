"""Abuse resistance: oversized frames, floods, malformed and hostile messages, acting for others."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_harness import WAIT, Player, Server, alive, drive, game_over, my_turn, new_table, wait_until
from websockets.exceptions import ConnectionClosed

from niugui.cards import CARDS
from niugui.server.handlers import CLIENT_TYPES


def a_turn_with_a_play(players: list[Player], table: str) -> tuple[Player, dict[str, Any]]:
    """Wait for the turn of one of ``players`` at which it has a legal play, and return that player
    and its view. A turn where nothing it holds beats the table (only a pass is legal, R27) is
    passed: one in eight deals gives the first human turn no play at all."""
    deadline = time.monotonic() + WAIT
    while True:
        wait_until(
            players,
            lambda: any(my_turn(p, table) for p in players),
            "a turn of a scripted player",
            timeout=max(0.0, deadline - time.monotonic()),
        )
        mover = next(p for p in players if my_turn(p, table))
        view = mover.views[table]
        assert view is not None
        if view["legal_plays"]:
            return mover, view
        assert view["can_pass"], view
        mover.ok("pass", table=table)


def test_malformed_frames_get_an_error_and_the_connection_stays_up(shared_server: Server) -> None:
    eve = Player(shared_server, "eve")
    cases = [
        ("{not json", "bad_json", None),
        ("[1, 2, 3]", "bad_json", None),
        ('"ping"', "bad_json", None),
        ('{"type": "launch_missiles", "id": "x1"}', "unknown_type", "x1"),
        ('{"id": "x2"}', "unknown_type", "x2"),
        ('{"type": "play", "id": "x3", "table": "t", "cards": "D4"}', "invalid_message", "x3"),
        ('{"type": "sit", "id": "x4", "table": "t", "seat": "zero"}', "invalid_message", "x4"),
        ('{"type": "sit", "id": "x5", "table": "t", "seat": 7}', "invalid_message", "x5"),
        ('{"type": "ping"}', "invalid_message", None),
        ('{"type": "ping", "id": "x6", "extra": 1}', "invalid_message", "x6"),
        ('{"type": "create_table", "id": "x7", "settings": {"turn_seconds": -1}}', "invalid_message", "x7"),
        ('{"type": "watch", "id": "x8", "table": "nosuchtable"}', "not_found", "x8"),
    ]
    for text, code, request_id in cases:
        eve.send_raw(text)
        reply = eve.wait(lambda m: m["type"] in ("ack", "error"))
        assert (reply["type"], reply["code"], reply["id"]) == ("error", code, request_id), text
        assert reply["message"]
        alive(eve)
    eve.close()


def test_frames_over_16_kib_are_refused(shared_server: Server) -> None:
    eve = Player(shared_server, "big")
    eve.send_raw(json.dumps({"type": "ping", "id": "big", "pad": "x" * 17_000}))
    reply = eve.wait(lambda m: m["type"] == "error")
    assert reply["code"] == "frame_too_large"
    alive(eve)
    eve.send_raw("x" * 100_000)  # beyond 64 KiB the frame is not even read: the connection closes
    with pytest.raises(ConnectionClosed):
        for _ in range(5):
            eve.recv()
    eve.ws = None


def test_a_flood_is_rate_limited(tmp_path: Path) -> None:
    server = Server(tmp_path / "data").start()  # the default 20 messages/s, burst 40
    try:
        eve = Player(server, "flood")
        started = time.monotonic()
        for n in range(120):
            eve.send_raw(json.dumps({"type": "ping", "id": f"f{n}"}))
        replies = [eve.wait(lambda m: m["type"] in ("ack", "error")) for _ in range(120)]
        took = time.monotonic() - started
        limited = [r for r in replies if r["type"] == "error"]
        assert limited and all(r["code"] == "rate_limited" for r in limited)
        # The burst, plus what the bucket refilled while the flood was handled (no more: however
        # slow a busy machine makes it, the limit holds).
        assert 40 <= 120 - len(limited) <= 40 + 20 * took + 1, (len(limited), took)
        assert {r["id"] for r in replies} == {f"f{n}" for n in range(120)}  # each answered by its id
        time.sleep(0.1)  # the bucket refills with time itself: 2 tokens at 20/s
        alive(eve)
        eve.close()
    finally:
        server.stop()


def test_no_acting_for_another_seat_out_of_turn_or_from_two_seats(shared_server: Server) -> None:
    alice, bob, carol = Player(shared_server, "a"), Player(shared_server, "b"), Player(shared_server, "c")
    table = new_table(alice, turn_seconds=30)
    alice.ok("sit", table=table, seat=0)
    assert alice.request("sit", table=table, seat=1)["code"] == "already_seated"  # one seat per player
    bob.ok("sit", table=table, seat=1)
    assert carol.request("sit", table=table, seat=1)["code"] == "seat_taken"
    assert carol.request("fill_bots", table=table)["code"] == "forbidden"  # only the creator
    assert carol.request("play", table=table, cards=["D4"])["code"] == "forbidden"  # no seat here
    alice.ok("fill_bots", table=table)
    alice.wait_event("deal")
    mover, view = a_turn_with_a_play([alice, bob], table)
    other = bob if mover is alice else alice
    play = view["legal_plays"][0]
    refused = other.request("play", table=table, cards=play)
    assert (refused["code"], refused["rule"]) == ("illegal_move", "R27")
    assert "turn" in refused["message"]
    wrong = [c for c in view["hand"] if [c] not in view["legal_plays"]]
    if wrong:  # a single that may not be played now: refused with the rule
        answer = mover.request("play", table=table, cards=[wrong[0]])
        assert answer["code"] == "illegal_move" and answer["rule"] in {"R17", "R24", "R26", "R27"}
    not_mine = next(str(c) for c in CARDS if str(c) not in view["hand"])  # (it may hold both jokers)
    answer = mover.request("play", table=table, cards=[not_mine])
    assert answer["code"] == "illegal_move" and answer["rule"] == "R27"  # cards it does not hold
    assert mover.request("play", table=table, cards=["Z9"])["rule"] == "R6"
    assert carol.request("sit", table=table)["code"] in ("bad_state", "table_full")
    assert alice.request("update_settings", table=table, settings={})["code"] == "bad_state"
    for p in (alice, bob, carol):
        p.close()


def test_one_account_cannot_open_tables_without_end(shared_server: Server) -> None:
    eve = Player(shared_server, "hoarder")
    answers = [eve.request("create_table") for _ in range(22)]
    assert [a["type"] for a in answers].count("ack") == 20
    assert answers[-1]["code"] == "forbidden" and "open tables" in answers[-1]["message"]
    eve.close()


def test_a_private_table_needs_its_code(shared_server: Server) -> None:
    alice, bob = Player(shared_server, "host"), Player(shared_server, "guest")
    ack = alice.ok("create_table", settings={"private": True})
    table, code = ack["data"]["table"]["id"], ack["data"]["table"]["code"]
    assert code and table not in {t["id"] for t in shared_server.get("/api/tables")["tables"]}
    assert bob.request("watch", table=table)["code"] == "not_found"
    assert bob.request("sit", table=table, code="wrong")["code"] == "not_found"
    assert bob.ok("sit", table=table, code=code)["data"] == {"seat": 0}
    assert alice.request("update_settings", table=table, settings={"private": False})["code"] == "bad_state"
    changed = alice.ok(
        "update_settings", table=table, settings={"private": True, "turn_seconds": 9, "games": 3}
    )
    assert changed["type"] == "ack"
    assert bob.wait_event("settings_changed")["state"]["settings"]["turn_seconds"] == 9
    alice.close()
    bob.close()


def test_http_health_metrics_and_accounts(shared_server: Server) -> None:
    url = shared_server.url
    assert httpx.get(url + "/healthz").json() == {"status": "ok"}
    metrics = httpx.get(url + "/metrics").text
    assert "niugui_connections" in metrics and "niugui_events_total" in metrics
    assert httpx.post(url + "/api/guest", json={"nickname": ""}).status_code == 422
    guest = shared_server.guest("临时")
    headers = {"Authorization": f"Bearer {guest['token']}"}
    registered = httpx.post(
        url + "/api/register", json={"username": "mingming", "password": "s3cret-pass"}, headers=headers
    ).json()
    assert registered["account"]["id"] == guest["account"]["id"]  # the guest keeps its history
    assert (
        httpx.post(
            url + "/api/register", json={"username": "mingming", "password": "another-pass"}
        ).status_code
        == 409
    )
    assert (
        httpx.post(url + "/api/login", json={"username": "mingming", "password": "wrong-pass"}).status_code
        == 401
    )
    login = httpx.post(url + "/api/login", json={"username": "mingming", "password": "s3cret-pass"}).json()
    me = httpx.get(url + "/api/me", headers={"Authorization": f"Bearer {login['token']}"}).json()
    assert me == {"id": guest["account"]["id"], "nickname": "临时", "username": "mingming"}
    assert httpx.get(url + "/api/me").status_code == 401
    for missing in (999999, 0, -1, 2**63, 10**30):  # ids no database integer holds are no game, not a 500
        assert httpx.get(f"{url}/api/games/{missing}/record").status_code == 404, missing


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
field_names = st.sampled_from(["id", "table", "cards", "seat", "code", "last_seq", "on", "settings", "x"])


@st.composite
def hostile_messages(draw: st.DrawFn, table: str) -> str:
    kind = draw(st.sampled_from([*CLIENT_TYPES, "nope", ""]))
    message: dict[str, Any] = {"type": kind}
    if draw(st.booleans()):
        message["id"] = draw(st.text(max_size=70) | st.integers())
    if draw(st.booleans()):
        message["table"] = table if draw(st.booleans()) else draw(json_values)
    if kind == "play" and draw(st.booleans()):
        message["cards"] = draw(
            st.lists(st.sampled_from(["D4", "S3", "S2", "RJ", "BJ", "HT", "Z1", "", "d4"]), max_size=6)
        )
    message.update(draw(st.dictionaries(field_names, json_values, max_size=3)))
    text = json.dumps(message)
    mutation = draw(st.sampled_from(["none", "none", "truncate", "garbage"]))
    if mutation == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif mutation == "garbage":
        text = draw(st.text(max_size=60))
    return text


def test_fuzzed_messages_never_crash_the_server_or_a_table(tmp_path: Path) -> None:
    """Random and malformed messages, many aimed at a table in play: every one is answered, the
    connection stays up, and the table still plays to the end."""
    server = Server(tmp_path / "data", "--rate-limit", "100000").start()
    try:
        mallory = Player(server, "mallory")
        table = new_table(mallory, turn_seconds=30)
        mallory.ok("sit", table=table, seat=0)
        mallory.ok("fill_bots", table=table)
        mallory.wait_event("deal")
        answered = [0]

        @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(hostile_messages(table))
        def fuzz(text: str) -> None:
            mallory.send_raw(text)
            marker = mallory.request("ping")  # answered in order: the fuzzed frame was handled first
            assert marker["type"] == "ack"
            answered[0] += 1

        fuzz()
        assert answered[0] >= 100
        assert not [m for m in mallory.received if m.get("code") == "server_error"]
        assert httpx.get(server.url + "/healthz").json() == {"status": "ok"}
        state = mallory.states[table]
        if state["status"] == "playing" and state["seats"][0]["player"] is not None:
            drive([mallory], table, game_over(mallory, table))
        fresh = Player(server, "after")
        other = new_table(fresh)
        fresh.ok("sit", table=other)
        fresh.ok("fill_bots", table=other)
        drive([fresh], other, game_over(fresh, other))
        assert fresh.views[other]["result"]["outcome"]
        log = server.log.read_text()
        assert "Traceback" not in log, log[-3000:]
    finally:
        server.stop()
