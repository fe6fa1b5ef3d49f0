"""Issue 15, findings 2 and 15: the page works under its own Content-Security-Policy (no inline script,
nothing from elsewhere; the other browser tests bypass it), connects without a token in any URL, and
signing out ends the session on the server too."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from .pages import create_table, take_nickname

WATCH_CSP = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


def me_status(server: str, token: str) -> int:
    request = urllib.request.Request(server + "/api/me", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def finished_private_game(server: str, token: str) -> int:
    """A private one-game table of this account's, ended at once by standing up: its game id."""
    from websockets.sync.client import connect

    port = server.rsplit(":", 1)[1]
    with connect(f"ws://127.0.0.1:{port}/ws") as ws:
        ws.send(json.dumps({"type": "auth", "id": "a", "token": token}))
        seen: list[dict[str, Any]] = []

        def ask(kind: str, **fields: Any) -> dict[str, Any]:
            ws.send(json.dumps({"type": kind, "id": kind, **fields}))
            while True:
                message = json.loads(ws.recv(timeout=20))
                seen.append(message)
                if message.get("id") == kind:
                    return dict(message)

        table = ask("create_table", settings={"private": True, "games": 1})["data"]["table"]["id"]
        ask("sit", table=table, seat=0)
        ask("fill_bots", table=table)
        ask("stand", table=table)
        while not any((m.get("event") or {}).get("kind") == "game_over" for m in seen):
            seen.append(json.loads(ws.recv(timeout=20)))
        return int(next(m["event"]["game_id"] for m in seen if (m.get("event") or {}).get("kind") == "deal"))


def test_the_page_plays_under_its_csp_and_signing_out_revokes_the_token(browser: Any, server: str) -> None:
    context = browser.new_context(bypass_csp=False)
    context.add_init_script(WATCH_CSP)
    page = context.new_page()
    console: list[str] = []
    sockets: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    page.on("websocket", lambda ws: sockets.append(ws.url))
    take_nickname(page, server, "csp")
    create_table(page, turn_seconds=30)  # over the WebSocket: the auth message got it in
    page.click("[data-action=fill-bots]")
    page.wait_for_selector(".hand [data-card]")
    assert page.evaluate("window.__csp") == []
    assert not [m for m in console if "Content Security Policy" in m], console
    assert sockets and all("token" not in url and "?" not in url for url in sockets), sockets
    token = page.evaluate("localStorage.getItem('niugui.token')")
    assert isinstance(token, str) and me_status(server, token) == 200
    game_id = finished_private_game(server, token)
    page.goto(server + "/#/history")  # its record downloads from the history, token and all (CSP too)
    with page.expect_download() as download:
        page.click(f"tr[data-game='{game_id}'] a")
    record = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert record["meta"]["game_no"] == 1 and record["result"]["outcome"] == "escape"
    page.goto(server + "/#/")  # the lobby's top bar has the sign-out button
    page.click("[data-action=sign-out]")
    page.wait_for_selector("input[name=nickname]")
    assert page.evaluate("localStorage.getItem('niugui.token')") is None
    assert me_status(server, token) == 401, "signing out ends the session on the server, not only here"
    assert json.dumps(page.evaluate("window.__csp")) == "[]"
    context.close()
