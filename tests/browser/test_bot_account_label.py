"""A bot account's seat is labelled as a bot on the page: its name says so and its avatar is a bot's
(docs/protocol.md "Bot accounts"); the seat is still its nickname's, not a server bot's."""

from __future__ import annotations

import json
import os
import urllib.request
from typing import Any

from websockets.sync.client import connect

from .conftest import PHONE
from .pages import WAIT_MS, create_table, take_nickname


def register_bot(server: str, username: str) -> str:
    body = json.dumps({"username": username, "password": "correct horse", "bot": True}).encode()
    request = urllib.request.Request(
        server + "/api/register", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        token: str = json.load(response)["token"]
        return token


def test_a_bot_accounts_seat_is_labelled_on_the_page(browser: Any, server: str) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    take_nickname(page, server, "阿丽")
    create_table(page, turn_seconds=60)
    table_id = page.get_attribute(".table-screen", "data-table")
    username = f"robo{os.getpid()}"
    token = register_bot(server, username)
    with connect(server.replace("http://", "ws://") + "/ws") as ws:
        ws.send(json.dumps({"type": "auth", "id": "a", "token": token}))
        assert json.loads(ws.recv())["account"]["bot"] is True
        ws.send(json.dumps({"type": "sit", "id": "s", "table": table_id, "seat": 2}))
        while (answer := json.loads(ws.recv())).get("id") != "s":
            pass
        assert answer["type"] == "ack", answer
        seat = page.locator(".seat[data-seat='2']")
        seat.locator(".avatar.bot").wait_for(timeout=WAIT_MS)
        name = seat.locator(".name").inner_text()
        assert username in name and ("机器人" in name or "Bot" in name), name
