"""Issue 33 (hardening, second round), a first subset: look-alike nicknames (finding 10), ``no-store``
on private responses, tokens never in logs (finding 12) and chat limited per account and per table
(finding 5). Each test is named after its finding and fails on the server before the fix."""

from __future__ import annotations

from pathlib import Path

import httpx
from fastapi.testclient import TestClient
from server_harness import Player, Server, drive, game_over

from niugui.server import auth
from niugui.server.app import create_app
from niugui.server.config import Config


def test_finding_10_look_alike_nicknames_are_refused(tmp_path: Path) -> None:
    """A guest may not pass for a server bot, a bot account or the system, nor hide characters; the
    nickname kept is NFKC-normalised. Before: every one of these was accepted as typed."""
    with TestClient(create_app(Config(data_dir=tmp_path))) as http:
        bot_account = {"username": "helper9", "password": "correct horse", "bot": True}
        bot = http.post("/api/register", json=bot_account)
        assert bot.status_code == 200, bot.text

        def code(nickname: str) -> str:
            answer = http.post("/api/guest", json={"nickname": nickname})
            assert answer.status_code == 422, (nickname, answer.text)
            return str(answer.json()["detail"]["code"])

        for reserved in ("expert bot 1", "Expert-Bot 2", "ｅｘｐｅｒｔ ｂｏｔ", "高手机器人", "机器人小王",
                         "quick-play", "系统", "Admin", "大师", "random", "HELPER9", "helper 9"):  # fmt: skip
            assert code(reserved) == "reserved_nickname", reserved
        hidden_ones = (
            "ali\u202ece",
            "a\x00b",
            "zero\u200bwidth",
            "tab\tbed",
            "\u2066x\u2069",
            "line\u2028two",
        )
        for hidden in hidden_ones:
            assert code(hidden) == "bad_nickname", repr(hidden)
        assert code(" \u3000 ") == "blank_nickname"  # an ideographic space is a space once normalised
        assert code("㍿" * 7) == "bad_nickname"  # 7 characters typed, 28 once normalised
        admin = http.post("/api/register", json={"username": "admin", "password": "correct horse"})
        assert admin.status_code == 422 and admin.json()["detail"]["code"] == "reserved_nickname"
        kept = http.post("/api/guest", json={"nickname": " Ａｌｉｃｅ "}).json()["account"]["nickname"]
        assert kept == "Alice"
        for fine in ("小明", "Abbott", "阿丽 2", "Zoë"):
            assert http.post("/api/guest", json={"nickname": fine}).json()["account"]["nickname"] == fine


def test_finding_12_private_responses_are_not_stored(tmp_path: Path) -> None:
    """Every answer of the API says ``Cache-Control: no-store``: the ones that carry a token (guest,
    register, login), the ones answered per account (``/api/me*``, logout, a profile or history for
    its viewer, a private table's ledger, record and replay) and every other route of the app, found
    from its OpenAPI schema, whatever its status. Before: none of them did."""
    app = create_app(Config(data_dir=tmp_path))
    with TestClient(app) as http:
        guest = http.post("/api/guest", json={"nickname": "ann"})
        token = guest.json()["token"]
        me = guest.json()["account"]["id"]
        auth = {"Authorization": f"Bearer {token}"}
        registered = http.post(
            "/api/register", json={"username": "ann1", "password": "pass-word"}, headers=auth
        )
        login = http.post("/api/login", json={"username": "ann1", "password": "pass-word"})
        table = http.post("/api/tables", json={}, headers=auth)  # no such route: a 405, still not stored
        answers = {
            "guest": guest,
            "register": registered,
            "login": login,
            "me": http.get("/api/me", headers=auth),
            "seats": http.get("/api/me/seats", headers=auth),
            "profile": http.get(f"/api/players/{me}/profile", headers=auth),
            "history": http.get(f"/api/players/{me}/games", headers=auth),
            "ledger": http.get("/api/tables/t1/ledger?code=ABCDEF", headers=auth),
            "record": http.get("/api/games/1/record", headers=auth),
            "replay": http.get("/api/games/1/replay", headers=auth),
            "405": table,
        }
        for path, operations in app.openapi()["paths"].items():  # and every route of the app
            for method in operations:  # with made-up parameters
                url = path.replace("{", "").replace("}", "")
                answers[f"{method} {path}"] = http.request(method, url, headers=auth)
        other = {"Authorization": f"Bearer {login.json()['token']}"}  # the loop signed ``auth`` out
        answers["logout"] = http.post("/api/logout", headers=other)
        for seen in ("guest", "register", "login", "me", "seats", "profile", "history", "logout"):
            assert answers[seen].status_code == 200, (seen, answers[seen].text)
        stored = sorted(
            name for name, answer in answers.items() if answer.headers.get("cache-control") != "no-store"
        )
        assert stored == []
        assert len(answers) > 15
        page = http.get("/")  # the page's own files keep their own caching
        assert page.headers["cache-control"] != "no-store"


def pieces(secret: str, size: int = 8) -> set[str]:
    """Every run of ``size`` characters of ``secret``: a log line showing any of them leaks part of it."""
    return {secret[i : i + size] for i in range(len(secret) - size + 1)}


def test_finding_12_no_token_in_a_debug_log(tmp_path: Path) -> None:
    """A server at debug level, through sign-in (guest, register, login), a whole game and sign-out:
    no 8 characters in a row of any token, nor of its hash, appear in its log. Before: the auth frame
    showed 27 of a token's 43 characters."""
    server = Server(tmp_path / "data", "--log-level", "debug").start()
    try:
        alice = Player(server, "logged")
        url = server.url
        headers = {"Authorization": f"Bearer {alice.token}"}
        registered = httpx.post(url + "/api/register", json={"username": "logged1", "password": "pass-word"},
                                headers=headers, timeout=10)  # fmt: skip
        login = httpx.post(
            url + "/api/login", json={"username": "logged1", "password": "pass-word"}, timeout=10
        )
        tokens = [alice.token, registered.json()["token"], login.json()["token"]]
        table = alice.ok("create_table", settings={"name": "logs", "turn_seconds": 10})["data"]["table"]["id"]
        alice.ok("sit", table=table, seat=0)
        alice.ok("fill_bots", table=table)
        drive([alice], table, game_over(alice, table))
        alice.close()
        for token in tokens:
            out = httpx.post(url + "/api/logout", headers={"Authorization": f"Bearer {token}"}, timeout=10)
            assert out.status_code in (200, 401)  # the register token's session may share alice's
    finally:
        server.stop()
    log = server.log.read_text()
    assert '"level": "debug"' in log or "DEBUG" in log.upper(), "the server logged at debug level"
    leaked = sorted(
        p for t in tokens for secret in (t, auth.token_hash(t)) for p in pieces(secret) if p in log
    )
    assert leaked == []


def test_finding_5_chat_is_limited_per_account_and_per_table(tmp_path: Path) -> None:
    """Reconnecting brings no new chat allowance (the account's bucket), a table's chat is bounded
    whoever speaks (the table's), and chatting where one is not seated drains neither. The buckets
    barely refill here (0.001/s), so what is counted is exactly the bursts. Before: each of the 10
    connections of one account got its own 3 chats relayed (30), and a table had no bound."""
    slow = ("chat_rate", "chat_account_rate", "chat_table_rate")
    limits = [arg for name in slow for arg in ("--limit", f"{name}=0.001")]
    server = Server(tmp_path / "data", *limits, "--limit", "chat_table_burst=4").start()
    try:
        alice, bob, carol, dan = (Player(server, name) for name in ("ann", "bob", "cy", "dan"))
        table = alice.ok("create_table", settings={"name": "chat"})["data"]["table"]["id"]
        alice.ok("sit", table=table, seat=0)
        bob.ok("sit", table=table, seat=1)
        for _ in range(3):  # not seated: refused for that, and costing the table nothing (6 > its 4)
            for outsider in (carol, dan):
                assert outsider.request("chat", table=table, phrase="together")["code"] == "forbidden"
        relayed = 0
        for _ in range(10):  # one account, ten connections one after another, three chats each
            for _ in range(3):
                relayed += alice.request("chat", table=table, phrase="together")["type"] == "ack"
            alice.drop()
            alice.connect()
        assert relayed == 3  # the account's burst, whatever the connections
        assert bob.request("chat", table=table, phrase="together")["type"] == "ack"  # the table's 4th
        refused = bob.request("chat", table=table, phrase="together")  # bob's own allowance is not spent
        assert refused["type"] == "error" and refused["code"] == "rate_limited"
    finally:
        server.stop()
