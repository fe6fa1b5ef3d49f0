"""Issue 15, findings 14 and 15: hostile input gets a clear error and the connection is kept; no
coercion of wrong types; no 500 on a malformed HTTP request; security headers on every response."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_harness import Player, Server, alive


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("input") / "data").start()
    yield srv
    srv.stop()


def answer_to(player: Player, text: str) -> dict[str, object]:
    player.send_raw(text)
    return player.wait(lambda m: m["type"] in ("ack", "error"))


def test_deep_nesting_is_bad_json_and_the_connection_stays(server: Server) -> None:
    eve = Player(server, "deep")
    for text in ("[" * 5000 + "]" * 5000, '{"type": "ping", "id": "d", "x": ' + "[" * 40 + "]" * 40 + "}"):
        reply = answer_to(eve, text)
        assert (reply["type"], reply["code"]) == ("error", "bad_json"), reply
        assert "nested" in str(reply["message"])
        alive(eve)
    eve.close()


def test_a_lone_surrogate_is_invalid_and_the_connection_stays(server: Server) -> None:
    eve = Player(server, "surrogate")
    for text in (
        '{"type": "ping", "id": "\\ud800"}',
        '{"type": "create_table", "id": "s1", "settings": {"name": "\\udfff"}}',
    ):
        reply = answer_to(eve, text)
        assert (reply["type"], reply["code"], reply["id"]) == ("error", "invalid_message", None), reply
        alive(eve)
    ok = answer_to(eve, '{"type": "ping", "id": "\\ud83d\\ude00"}')  # a real pair (😀) is fine
    assert (ok["type"], ok["id"]) == ("ack", "😀")
    eve.close()


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"type": "create_table", "settings": {"turn_seconds": "20"}}, "turn_seconds"),
        ({"type": "create_table", "settings": {"private": 1}}, "private"),
        ({"type": "create_table", "settings": {"games": 2.0}}, "games"),
        ({"type": "sit", "table": "t", "seat": "0"}, "seat"),
        ({"type": "sit", "table": "t", "seat": True}, "seat"),
        ({"type": "autoplay", "table": "t", "on": 1}, "on"),
        ({"type": "watch", "table": 12345678}, "table"),
        ({"type": "list_tables", "limit": "5"}, "limit"),
    ],
)
def test_wrong_types_are_refused_not_coerced(server: Server, fields: dict[str, object], where: str) -> None:
    eve = Player(server, "types")
    reply = eve.request(str(fields.pop("type")), **fields)
    assert (reply["type"], reply["code"]) == ("error", "invalid_message"), reply
    assert where in str(reply["message"])
    eve.close()


def test_malformed_http_requests_are_4xx_never_500(server: Server) -> None:
    url = server.url
    cases = [
        ("POST", "/api/guest", '{"nickname": "\\ud800"}'),
        ("POST", "/api/guest", '{"nickname": 5}'),
        ("POST", "/api/guest", "[" * 5000 + "]" * 5000),
        ("POST", "/api/guest", "{not json"),
        ("POST", "/api/login", '{"username": "\\udc00x", "password": "whatever1"}'),
        ("POST", "/api/register", '{"username": "abc", "password": 12345678}'),
        ("GET", "/api/games/99999999999999999999999/record", None),
        ("GET", "/api/games/-1/record", None),
        ("GET", "/api/games/abc/record", None),
        ("GET", "/api/tables?limit=5000", None),
        ("GET", "/api/tables?status=nope", None),
        ("GET", "/api/leaderboard?limit=99999999999999999999", None),
        ("GET", "/api/players/" + "x" * 300 + "/games", None),
        ("GET", "/api/tables/" + "x" * 300 + "/ledger", None),
    ]
    for method, path, body in cases:
        reply = httpx.request(method, url + path, content=body, headers={"Content-Type": "application/json"})
        assert 400 <= reply.status_code < 500, (method, path, reply.status_code, reply.text[:200])
    big = httpx.post(url + "/api/guest", content=b"x" * 300_000, headers={"Content-Type": "application/json"})
    assert big.status_code == 413
    log = Path(server.log).read_text()
    assert "Traceback" not in log, log[-2000:]


def test_security_headers_on_the_page_and_the_api(server: Server) -> None:
    for path in ("/", "/index.html", "/js/app.js", "/api/tables", "/healthz", "/api/nothing-here"):
        headers = httpx.get(server.url + path).headers
        csp = headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, (path, csp)
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert headers.get("x-frame-options") == "DENY", path
        assert headers.get("x-content-type-options") == "nosniff", path
        assert headers.get("referrer-policy") == "no-referrer", path


def test_the_page_has_no_inline_script_or_style() -> None:
    """What the CSP forbids must not be in the page: no inline <script>, no on…= handlers, no style=."""
    import re

    static = Path(__file__).resolve().parents[2] / "niugui" / "web" / "static"
    html = (static / "index.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, flags=re.S | re.I)
    assert scripts and all("src=" in attrs and not body.strip() for attrs, body in scripts)
    assert not re.search(r"\son[a-z]+\s*=", html, flags=re.I)
    assert not re.search(r"\sstyle\s*=", html, flags=re.I)
    for js in static.glob("js/*.js"):
        text = js.read_text(encoding="utf-8")
        assert not re.search(r"\beval\(|new Function\(|setAttribute\(\s*[\"']style", text), js.name
        assert not re.search(r"<[a-z]+[^>]*\s(style|on[a-z]+)=", text), js.name  # none in innerHTML either


def test_frames_are_json_the_harness_reads(server: Server) -> None:
    """The welcome says protocol 2 (auth by first message)."""
    eve = Player(server, "proto")
    assert eve.welcome["protocol"] == 2
    assert json.loads(json.dumps(eve.welcome))["account"]["nickname"] == "proto"
    eve.close()
