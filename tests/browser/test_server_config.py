"""The page keeps no list of its own of what the server decides: the lobby's bot levels, their words
in each language, the default level and the turn timer's limits all come from ``GET /api/config``."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from niugui.bots.levels import LEVELS

from .conftest import PHONE
from .pages import switch_lang, take_nickname


def test_the_lobby_offers_the_servers_levels_and_timer_limits(browser: Any, server: str) -> None:
    with urllib.request.urlopen(f"{server}/api/config") as answer:
        config = json.load(answer)
    assert [level["name"] for level in config["bot_levels"]] == [level.name for level in LEVELS]
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    take_nickname(page, server, "小配")
    options = page.locator("select[name=bot_level] option")
    assert options.evaluate_all("os => os.map(o => o.value)") == [level.name for level in LEVELS]
    assert options.evaluate_all("os => os.map(o => o.textContent)") == [level.label_zh for level in LEVELS]
    assert page.locator("select[name=bot_level]").input_value() == config["default_bot_level"]
    timer = page.locator("input[name=turn_seconds]")
    limits = config["turn_seconds"]
    assert [float(timer.get_attribute(a) or "nan") for a in ("min", "max")] == [limits["min"], limits["max"]]
    assert float(timer.input_value()) == limits["default"]
    switch_lang(page, "Hello")
    options = page.locator("select[name=bot_level] option")
    assert options.evaluate_all("os => os.map(o => o.textContent)") == [level.label_en for level in LEVELS]
    context.close()
