"""A table's creator invites a bot account from the page; the bot account's seat is labelled as a bot
there: its name says so and its avatar is a bot's (docs/protocol.md "Bot accounts")."""

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


def test_the_creator_invites_a_bot_account_and_its_seat_is_labelled(browser: Any, server: str) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    take_nickname(page, server, "阿丽")
    create_table(page, turn_seconds=60)
    table_id = page.get_attribute(".table-screen", "data-table")
    username = f"robo{os.getpid()}"
    token = register_bot(server, username)
    form = "form[data-role=invite-bot]"
    page.fill(f"{form} input[name=bot_username]", "nobody-online")
    page.click(f"{form} [data-action=invite-bot]")
    page.wait_for_selector("[data-role=toast]:has-text('nobody-online')", timeout=WAIT_MS)  # bot_offline
    with connect(server.replace("http://", "ws://") + "/ws") as ws:
        ws.send(json.dumps({"type": "auth", "id": "a", "token": token}))
        assert json.loads(ws.recv())["account"]["bot"] is True
        page.fill(f"{form} input[name=bot_username]", username)
        page.click(f"{form} [data-action=invite-bot]")
        invitation = json.loads(ws.recv(timeout=WAIT_MS / 1000))
        assert invitation["type"] == "invitation" and invitation["table"] == table_id, invitation
        ws.send(json.dumps({"type": "sit", "id": "s", "table": table_id, "seat": invitation["seat"]}))
        while (answer := json.loads(ws.recv(timeout=WAIT_MS / 1000))).get("id") != "s":
            pass
        assert answer["type"] == "ack", answer
        seat = page.locator(f".seat[data-seat='{invitation['seat']}']")
        seat.locator(".avatar.bot").wait_for(timeout=WAIT_MS)
        name = seat.locator(".name").inner_text()
        assert username in name and ("机器人" in name or "Bot" in name), name
