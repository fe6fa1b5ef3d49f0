"""快速开始 in the browser at phone size (issue 11): four people tap quick play and sit at one table,
play its rated game, and then the profile shows the rating chart and the leaderboard lists them by
rating; one person alone fills the seats with bots after the wait. Every page is checked for cards
of another seat's hand (R11, R12) while it plays."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import PHONE, run_server, screenshot
from .pages import CARDS_JS, WAIT_MS, assert_no_foreign_cards, my_turn, take_nickname, take_turn


@pytest.fixture(scope="module")
def community_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    options = ("--community", "bots_after=1", "--community", "rated_min_games=1")
    with run_server(tmp_path_factory.mktemp("quick-play"), 0.02, *options) as url:
        yield url


def quick_play(page: Any, turn_seconds: str = "") -> None:
    page.select_option("select[name=qp_turn]", turn_seconds)
    page.click("[data-action=quick-play]")
    page.wait_for_selector("[data-role=queue], .table-screen[data-you]", timeout=WAIT_MS)


def test_four_phones_tap_quick_play_play_a_rated_game_and_see_ratings(
    browser: Any, community_server: str
) -> None:
    pages = [browser.new_context(viewport=PHONE).new_page() for _ in range(4)]
    errors: list[str] = []
    for n, page in enumerate(pages):
        page.on("pageerror", lambda error: errors.append(str(error)))
        take_nickname(page, community_server, f"快{n}")
    quick_play(pages[0], "60")  # every action a click, even on a busy machine
    pages[0].wait_for_selector("[data-role=queue-count]")
    assert "1" in pages[0].inner_text("[data-role=queue-count]")
    screenshot(pages[0], "quick-play-waiting-phone")
    for page in pages[1:]:
        quick_play(page, "60")
    for page in pages:
        page.wait_for_selector(".table-screen[data-you] .hand [data-card]", timeout=WAIT_MS)
    tables = {page.get_attribute(".table-screen", "data-table") for page in pages}
    seats = sorted(int(page.get_attribute(".table-screen", "data-you") or -1) for page in pages)
    assert len(tables) == 1 and seats == [0, 1, 2, 3]
    assert pages[0].locator("[data-role=seat-stats]").count() >= 3  # the others' rating, escape rate
    screenshot(pages[0], "quick-play-table-phone")
    checks: list[tuple[int, int, list[str]]] = []  # (seat, actions so far, card codes in the DOM)
    actions = 0
    deadline = time.monotonic() + 300
    while not all(page.get_attribute(".table-screen", "data-over") == "true" for page in pages):
        assert time.monotonic() < deadline, "the quick-play game did not end in time"
        acted = False
        for page in pages:
            if my_turn(page) and take_turn(page):
                actions += 1
                acted = True
                for other in pages:
                    seen = other.evaluate(CARDS_JS)
                    if not seen["over"]:
                        checks.append((int(seen["you"]), actions, seen["cards"]))
                break
        if not acted:
            pages[0].wait_for_timeout(30)
    game_id = pages[0].get_attribute(".table-screen", "data-game-id")
    with urllib.request.urlopen(f"{community_server}/api/games/{game_id}/record", timeout=10) as answer:
        record = json.load(answer)
    assert len(record["actions"]) == actions  # every action came from a click (no timeouts)
    assert len(checks) > 3 * actions // 2
    assert_no_foreign_cards(record, checks)
    you = pages[0]
    you.goto(community_server + "/#/profile")
    # attached, not "visible": a loser's shown rating stays 0, a flat line of no height
    you.wait_for_selector("[data-role=rating-chart] polyline", state="attached", timeout=WAIT_MS)
    points = you.get_attribute("[data-role=rating-chart] polyline", "points") or ""
    assert len(points.split()) == 2  # the start and the rating after the one rated game
    assert you.inner_text("[data-role=games]") == "1"
    assert you.locator("[data-role=recent] [data-action=open-replay]").count() == 1
    screenshot(you, "profile-phone")
    you.click("[data-action=leaderboard]")
    you.wait_for_selector("[data-role=leaderboard][data-by=rating] tr[data-player]", timeout=WAIT_MS)
    rows = you.locator("[data-role=leaderboard] tr[data-player]")
    assert rows.count() == 4
    shown = [int(rows.nth(i).locator("td").nth(3).inner_text()) for i in range(4)]
    assert shown == sorted(shown, reverse=True)
    screenshot(you, "leaderboard-phone")
    assert not errors, errors


def test_one_phone_fills_the_seats_with_bots_after_the_wait(browser: Any, community_server: str) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    take_nickname(page, community_server, "独行")
    quick_play(page)
    page.wait_for_selector("[data-action=queue-bots]:enabled", timeout=WAIT_MS)
    page.click("[data-action=queue-bots]")
    page.wait_for_selector(".table-screen[data-you] .hand [data-card]", timeout=WAIT_MS)
    assert page.locator(".seat .avatar.bot").count() == 3


def test_leaving_the_queue_goes_back_to_the_button(browser: Any, community_server: str) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    take_nickname(page, community_server, "离开")
    quick_play(page)
    page.wait_for_selector("[data-action=leave-queue]")
    page.click("[data-action=leave-queue]")
    page.wait_for_selector("[data-action=quick-play]")


def test_every_word_of_these_screens_exists_in_both_languages(browser: Any, static_url: str) -> None:
    page = browser.new_context().new_page()
    page.goto(static_url + "/index.html")
    keys = page.evaluate("async () => (await import('/js/words.js')).WORD_KEYS")
    assert set(keys["zh"]) == set(keys["en"])
    page.context.close()
