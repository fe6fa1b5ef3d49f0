"""(a) A new player opens the page, takes a nickname, creates a table, fills it with bots and plays a
whole game to the result panel, by clicks only; (d) screenshots of the lobby, a table mid-game and
the result panel at phone (360×640) and desktop (1280×800) sizes go to artifacts/screenshots/."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from niugui import Game

from .conftest import DESKTOP, PHONE, screenshot
from .pages import (
    create_table,
    play_until_result,
    result_shown,
    settle,
    swipe,
    switch_lang,
    take_nickname,
    take_turn,
    wait_my_turn_or_result,
)


def shoot_both(page: Any, name: str) -> None:
    """Screenshots at both sizes; on the phone nothing may stick out sideways."""
    page.set_viewport_size(PHONE)
    settle(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name
    screenshot(page, f"{name}-phone-360x640")
    page.set_viewport_size(DESKTOP)
    settle(page)
    screenshot(page, f"{name}-desktop-1280x800")
    page.set_viewport_size(PHONE)


def test_new_player_plays_a_full_game_against_bots(browser: Any, server: str) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    take_nickname(page, server, "小明")
    assert page.inner_text("[data-role=hello]").startswith("你好")  # Chinese by default
    switch_lang(page, "Hello")
    switch_lang(page, "你好")
    page.wait_for_selector("[data-role=tables] li")  # the list of open tables has come
    shoot_both(page, "lobby")

    create_table(page, turn_seconds=30)
    page.click("[data-action=fill-bots]")
    page.wait_for_selector(".hand [data-card]")
    assert page.locator(".hand [data-card]").count() in (13, 14)  # R9
    # 翻牌 (R8) picked the first drawer: the page names that seat, as the table state's `flip` says.
    flip = page.locator("[data-role=flip]").first
    seat = flip.get_attribute("data-seat")
    assert seat in ("0", "1", "2", "3"), seat
    where = f".seat[data-seat='{seat}'] .name, .me-bar[data-seat='{seat}'] .name"
    name = page.inner_text(where).split(" (")[0]
    assert name in flip.inner_text(), (name, flip.inner_text())

    # The rules at a glance, one tap away.
    page.click("[data-action=help]")
    assert "♦4" in page.inner_text("[data-role=help]")  # R26, in words: rule ids only on the rules page
    assert page.locator("[data-role=help] a[href='#/rules']").count() == 1
    page.click("[data-action=close-help]")
    assert page.locator("[data-role=help]").count() == 0

    # Sliding a finger across cards selects them all; sliding again from a selected card clears them.
    wait_my_turn_or_result(page)
    hand = page.locator(".hand .card").evaluate_all("es => es.map((e) => e.dataset.card)")
    assert swipe(page, 0, 3) == hand[:4]
    assert swipe(page, 3, 0) == []

    # Mid-game: after a few of my own turns, with cards on the table.
    for _ in range(3):
        wait_my_turn_or_result(page)
        if result_shown(page):
            break
        assert take_turn(page)
    wait_my_turn_or_result(page)
    if not result_shown(page):
        shoot_both(page, "table-mid-game")

    play_until_result(page)
    result = page.locator("[data-role=result]")
    outcome = result.get_attribute("data-outcome")
    assert outcome in {
        "sweep", "win", "draw", "double_win", "double_draw", "double_caught"
    }
    deltas = [int(d.replace("+", "")) for d in page.locator("[data-role=delta]").all_inner_texts()]
    assert len(deltas) == 4
    assert sum(deltas) == 0  # R33, R34: no escape, scores sum to zero
    # The fairness proof checks out in the page (SHA-256 of salt:deck, and the deck deals the hands).
    page.click("[data-action=verify]")
    page.wait_for_selector("[data-role=verdict][data-ok]")
    assert page.get_attribute("[data-role=verdict]", "data-ok") == "true"
    shoot_both(page, "result")
    game_id = page.get_attribute(".table-screen", "data-game-id")
    first_out = page.get_attribute("[data-role=result] tr[data-place='0']", "data-seat")

    # The next game: the previous 上游 draws first (R8); running totals carry over (R36).
    page.click("[data-action=next-game]")
    page.wait_for_selector(".table-screen[data-status=playing] .hand [data-card]")
    assert "第 2 局" in page.inner_text("[data-role=table-title]")
    assert page.get_attribute("[data-role=first-drawer]", "data-seat") == first_out
    # Leaving a game in progress is an escape (R35): the page asks first.
    page.click("[data-action=leave]")
    page.click("[data-role=leave-confirm] [data-action=confirm-leave]")

    # History: both games are listed (the second one an escape, −9), and the first one's replay steps
    # forwards and backwards.
    page.wait_for_selector("[data-role=hello]")
    page.click("[data-action=history]")
    page.wait_for_selector("[data-role=leaderboard]")
    # Games against bots alone are not rated, so they put nobody on the leaderboard (issue 15, finding 9).
    assert "只计" in page.inner_text("body")
    assert "小明" not in page.inner_text("[data-role=leaderboard]")
    page.wait_for_selector("[data-role=history] tr[data-game]")
    rows = page.locator("[data-role=history] tr[data-game]")
    assert rows.count() == 2
    assert rows.first.locator("td").nth(3).inner_text() == "-9"
    page.click(f"tr[data-game='{game_id}'] [data-action=open-replay]")
    page.wait_for_selector("[data-role=step]")
    total = int(page.inner_text("[data-role=step]").split("/")[1].split()[0])
    assert total > 10
    for _ in range(3):
        page.click("[data-action=next]")
    page.click("[data-action=prev]")
    assert page.inner_text("[data-role=step]").split("/")[0].endswith("2")
    # The replay after two actions shows what the engine says of the record cut there.
    with urllib.request.urlopen(f"{server}/api/games/{game_id}/record", timeout=5) as response:
        record = json.load(response)
    expected = Game.from_record({**record, "actions": record["actions"][:2], "result": None})
    seats = [int(s) for s in page.locator(".seat[data-seat]").evaluate_all(SEATS_JS)]
    counts = [int(c) for c in page.locator(".seat [data-role=count]").all_inner_texts()]
    assert counts == [expected.count(s) for s in seats]
    bottom = ({0, 1, 2, 3} - set(seats)).pop()
    shown = page.locator(".hand [data-card]").evaluate_all("es => es.map(e => e.dataset.card)")
    assert sorted(shown) == sorted(str(c) for c in expected.hand(bottom))
    page.click("[data-action=last]")
    page.wait_for_selector("[data-role=result]")
    assert page.get_attribute("[data-role=result]", "data-outcome") == outcome
    assert not errors, errors
    context.close()


SEATS_JS = "es => es.map(e => e.dataset.seat)"
