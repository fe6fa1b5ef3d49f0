"""Issue 28, point 6: the smaller things a new player met, each seen by a test where a test can see
it — labelled seat stats (no bare rating under a bot, no "分 — · 逃 —" under a new player), an empty
leaderboard that says why, the keyboard's keys in sight on a desktop, no old 不出 beside the seat whose
turn it is, the 记牌器's caption, the page's own question before an escape (no browser confirm box),
"Autoplay" capitalised as "Sound" is, tables marked yours by account (two guests may share a
nickname), a full table without a greyed 入座, and the replay titled as 战绩 names the game."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import DESKTOP, run_server, screenshot
from .pages import MY_TURN, WAIT_MS, create_table, settle, take_nickname, take_turn

PHONE = {"width": 360, "height": 740}


@pytest.fixture(scope="module")
def fresh_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own: its leaderboard starts empty."""
    with run_server(tmp_path_factory.mktemp("polish"), 0.02) as url:
        yield url


def test_an_empty_leaderboard_says_why(browser: Any, fresh_server: str) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    take_nickname(page, fresh_server, "榜")
    page.evaluate("() => { location.hash = '#/leaderboard'; }")
    page.wait_for_selector("[data-role=leaderboard-empty]", timeout=WAIT_MS)
    assert "还没有人上榜" in page.inner_text("[data-role=leaderboard-empty]")
    assert page.locator("[data-role=leaderboard]").count() == 0  # no bare header
    page.click("[data-action=by-points]")
    page.wait_for_selector("[data-role=leaderboard-empty]", timeout=WAIT_MS)
    page.context.close()


def test_the_table_at_a_glance(browser: Any, server: str) -> None:
    page = browser.new_context(viewport=DESKTOP).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    take_nickname(page, server, "细节")
    create_table(page, turn_seconds=60)
    page.click("[data-action=fill-bots]")
    page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
    stats = page.locator(".seat [data-role=seat-stats]").all_inner_texts()
    assert stats and all(s == "" or s.startswith("等级分") for s in stats), stats  # bots: labelled
    assert page.is_visible("[data-role=keys-help]")  # a desktop: the keys are spelled out
    assert "Enter" in page.inner_text("[data-role=keys-help]")
    me = page.get_attribute(".table-screen", "data-you")
    for _ in range(4):  # on each of my turns, no old 不出 of mine beside me
        page.wait_for_function(MY_TURN, timeout=WAIT_MS)
        assert page.locator(f".play-slot[data-seat='{me}'] .pass-chip").count() == 0
        take_turn(page)
    page.click("[data-action=counter]")
    assert "没出现" in page.inner_text("[data-role=counter-caption]")
    page.click("[data-action=lang]")
    page.wait_for_selector("[data-action=autoplay]:text('Autoplay')", timeout=WAIT_MS)
    assert page.inner_text("[data-action=sound]").startswith("Sound")
    page.click("[data-action=lang]")
    page.wait_for_selector("[data-action=autoplay]:text('托管')", timeout=WAIT_MS)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.type), dialog.dismiss()))
    page.click("[data-action=leave]")
    page.wait_for_selector("[data-role=leave-confirm]")
    settle(page)
    screenshot(page, "issue28-leave-confirm-desktop")
    page.click("[data-action=stay]")
    assert page.locator("[data-role=leave-confirm]").count() == 0
    assert page.locator(".table-screen[data-you]").count() == 1  # still at the table
    assert dialogs == []  # never the browser's bare box
    assert not errors, errors
    page.context.close()


def test_the_lobby_knows_your_tables_by_account_and_shows_full_ones(browser: Any, server: str) -> None:
    a, b = (browser.new_context(viewport=PHONE).new_page() for _ in range(2))
    take_nickname(a, server, "同名")
    take_nickname(b, server, "同名")  # two guests, one nickname
    create_table(a, turn_seconds=60)
    table = a.get_attribute(".table-screen", "data-table")
    a.click("[data-action=fill-bots]")
    a.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
    b.click("[data-action=refresh]")
    row = f"[data-role=tables] li[data-table='{table}']"
    b.wait_for_selector(row, timeout=WAIT_MS)
    text = b.inner_text(row)
    assert "你在这桌" not in text and "(你)" not in text  # not b's, whatever its name says
    assert b.locator(f"{row} [data-role=table-full]").count() == 1  # full: no greyed 入座
    assert b.locator(f"{row} [data-action=sit]").count() == 0
    a.evaluate("() => { location.hash = '#/'; }")
    a.wait_for_selector(row, timeout=WAIT_MS)
    assert "你在这桌" in a.inner_text(row)
    for page in (a, b):
        page.context.close()


def test_a_replay_is_titled_as_the_history_names_its_game(browser: Any, server: str) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    take_nickname(page, server, "回看")
    create_table(page, turn_seconds=60)
    page.click("[data-action=fill-bots]")
    page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
    page.click("[data-action=leave]")
    page.click("[data-action=confirm-leave]")  # an escape ends the game: it is in the history
    page.wait_for_selector("[data-role=hello]", timeout=WAIT_MS)
    page.click("[data-action=history]")
    row = page.wait_for_selector("[data-role=history] tr[data-game]", timeout=WAIT_MS)
    assert "第 1 局" in row.inner_text()
    row.click(position={"x": 10, "y": 10})
    page.wait_for_selector(".replay-controls", timeout=WAIT_MS)
    assert "回放 · 第 1 局" in page.inner_text(".topbar")
    assert "#" not in page.inner_text(".topbar")
    page.click("[data-action=first]")  # the deal: every hand open, the fullest
    page.wait_for_selector(".seat .open-hand .card")
    settle(page)
    screenshot(page, "issue28-replay-deal-phone")
    boxes = page.evaluate(
        "() => [...document.querySelectorAll('.seat .open-hand .card')].map((e) => {"
        " const r = e.getBoundingClientRect(); return [r.left, r.right]; })"
    )
    assert len(boxes) >= 26 and all(left >= 0 and right <= PHONE["width"] for left, right in boxes), boxes
    page.context.close()
