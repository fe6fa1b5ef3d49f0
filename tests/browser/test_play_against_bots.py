"""(a) A new player opens the page, takes a nickname, creates a table, fills it with bots and plays a
whole game to the result panel, by clicks only; (d) screenshots of the lobby, a table mid-game and
the result panel at phone (360×640) and desktop (1280×800) sizes go to artifacts/screenshots/."""

from __future__ import annotations

from typing import Any

from .conftest import DESKTOP, PHONE, screenshot
from .pages import create_table, my_turn, play_until_result, take_nickname, take_turn


def shoot_both(page: Any, name: str) -> None:
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(150)
    screenshot(page, f"{name}-phone-360x640")
    page.set_viewport_size(DESKTOP)
    page.wait_for_timeout(150)
    screenshot(page, f"{name}-desktop-1280x800")
    page.set_viewport_size(PHONE)


def test_new_player_plays_a_full_game_against_bots(browser: Any, server: str) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    take_nickname(page, server, "小明")
    page.wait_for_timeout(300)
    shoot_both(page, "lobby")

    create_table(page, turn_seconds=30)
    page.click("[data-action=fill-bots]")
    page.wait_for_selector(".hand [data-card]")
    assert page.locator(".hand [data-card]").count() in (13, 14)  # R9

    # Mid-game: after a few of my own turns, with cards on the table.
    turns = 0
    while turns < 3 and not page.locator("[data-role=result]").count():
        if my_turn(page):
            take_turn(page)
            turns += 1
        else:
            page.wait_for_timeout(40)
    page.wait_for_function(MY_TURN_OR_OVER)
    if not page.locator("[data-role=result]").count():
        shoot_both(page, "table-mid-game")

    play_until_result(page)
    result = page.locator("[data-role=result]")
    assert result.get_attribute("data-outcome") in {
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
    assert page.locator("[data-action=next-game]").is_enabled()
    assert not errors, errors
    context.close()


MY_TURN_OR_OVER = (
    "document.querySelector('[data-role=result]') !== null || "
    "document.querySelector('[data-action=hint]:not(:disabled), [data-action=pass]:not(:disabled)') !== null"
)
