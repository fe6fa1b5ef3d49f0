"""Every built-in bot level (``niugui.bots.levels``) fills a table and plays a game to its end over the
protocol, and each list the server shows of them is derived from that one registry."""

from __future__ import annotations

import pytest
from server_harness import Player, Server, drive, game_over

from niugui.bots import BUILTIN
from niugui.bots.levels import LEVELS, NAMES
from niugui.ratings import BOT_RATINGS
from niugui.server.protocol import TableSettings
from niugui.server.routes.page_config import page_config


@pytest.mark.parametrize("level", NAMES)
def test_every_level_fills_a_table_and_finishes_a_game(shared_server: Server, level: str) -> None:
    """A new user's walk: a table with ``bot_level``, sit, ``fill_bots``, play to the end (R32–R36)."""
    alice = Player(shared_server, f"lv-{level}")
    table = alice.ok("create_table", settings={"name": level, "bot_level": level})["data"]["table"]["id"]
    alice.ok("sit", table=table, seat=0)
    alice.ok("fill_bots", table=table)
    drive([alice], table, game_over(alice, table))
    seats = alice.states[table]["seats"]
    assert [s["player"]["bot"] for s in seats[1:]] == [level] * 3
    assert {s["player"]["rating"] for s in seats[1:]} == {BOT_RATINGS[level].shown}
    events = [m["event"] for m in alice.received if m["type"] == "event" and m.get("table") == table]
    bot_plays = [e for e in events if e["kind"] in ("play", "pass") and e.get("seat", 0) != 0]
    assert bot_plays and {e["by"] for e in bot_plays} == {"bot"}  # each answered by its own bot
    over = next(e for e in events if e["kind"] == "game_over")
    assert sum(over["result"]["scores"]) == 0  # R36
    alice.close()


def test_an_unknown_level_is_refused_with_the_known_ones(shared_server: Server) -> None:
    alice = Player(shared_server, "lv-none")
    answer = alice.request("create_table", settings={"name": "x", "bot_level": "grandmaster"})
    assert answer["type"] == "error" and all(name in answer["message"] for name in NAMES)
    alice.close()


def test_the_lists_of_levels_derive_from_the_registry() -> None:
    assert list(BUILTIN) == list(BOT_RATINGS) == list(NAMES) == [level.name for level in LEVELS]
    schema = TableSettings.model_json_schema()
    assert schema["properties"]["bot_level"]["enum"] == list(NAMES)
    page = page_config()["bot_levels"]  # the page's list and words (GET /api/config)
    assert [(p["name"], p["words"]["zh"], p["rating"]) for p in page] == [
        (level.name, level.label_zh, BOT_RATINGS[level.name].shown) for level in LEVELS
    ]
