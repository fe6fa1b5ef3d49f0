"""(b) Four people, each in a browser context of their own, sit at one table and play a game together.
After every action, every page's DOM is searched for card codes: none may be a card of another
seat's hand that has not been played (R11, R12). Also: a private table is joined by its code, and a
spectator sees no hand at all."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

from .conftest import PHONE
from .pages import CARDS_JS, WAIT_MS, assert_no_foreign_cards, create_table, my_turn, take_nickname, take_turn


def fetch_record(server: str, game_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server}/api/games/{game_id}/record", timeout=5) as response:
        record: dict[str, Any] = json.load(response)
        return record


def test_four_browsers_play_one_game_and_never_see_another_hand(browser: Any, server: str) -> None:
    contexts = [browser.new_context(viewport=PHONE) for _ in range(4)]
    pages = [c.new_page() for c in contexts]
    errors: list[str] = []
    for page in pages:
        page.on("pageerror", lambda error: errors.append(str(error)))
    for i, page in enumerate(pages):
        take_nickname(page, server, f"玩家{i + 1}")
    create_table(pages[0], turn_seconds=120)
    table_id = pages[0].get_attribute(".table-screen", "data-table")
    for page in pages[1:]:
        # Join from the lobby's list of open tables.
        page.click("[data-action=refresh]")
        row = page.locator(f"li[data-table='{table_id}'] [data-action=sit]")
        row.wait_for(timeout=WAIT_MS)
        row.click()
        page.wait_for_selector(f".table-screen[data-table='{table_id}'][data-you]")
    for page in pages:
        page.wait_for_selector(".hand [data-card]")
    seats = [int(page.get_attribute(".table-screen", "data-you") or -1) for page in pages]
    assert sorted(seats) == [0, 1, 2, 3]

    checks: list[tuple[int, int, list[str]]] = []  # (seat, actions so far, card codes in the DOM)
    actions = 0
    deadline = time.monotonic() + 150
    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        overs = [page.get_attribute(".table-screen", "data-over") == "true" for page in pages]
        if all(overs):
            break
        acted = False
        for page in pages:
            if my_turn(page):
                assert take_turn(page)
                actions += 1
                acted = True
                for other, seat in zip(pages, seats, strict=True):
                    seen = other.evaluate(CARDS_JS)
                    if not seen["over"]:
                        checks.append((seat, actions, seen["cards"]))
                break
        if not acted:
            pages[0].wait_for_timeout(30)

    game_id = pages[0].get_attribute(".table-screen", "data-game-id")
    assert game_id
    record = fetch_record(server, game_id)
    assert len(record["actions"]) == actions  # every action came from a click (no timeouts)
    assert len(checks) > 3 * actions // 2
    assert_no_foreign_cards(record, checks)
    for page in pages:
        page.wait_for_selector("[data-role=result]")
    assert not errors, errors
    for context in contexts:
        context.close()


def test_private_table_by_code_and_a_spectator_sees_no_hand(browser: Any, server: str) -> None:
    host, guest, watcher = (browser.new_context(viewport=PHONE) for _ in range(3))
    a, b, w = host.new_page(), guest.new_page(), watcher.new_page()
    take_nickname(a, server, "房主")
    create_table(a, turn_seconds=60, private=True)
    join = a.get_attribute("[data-role=join-code]", "data-join")
    assert join
    table_id = a.get_attribute(".table-screen", "data-table")
    take_nickname(b, server, "朋友")
    assert b.locator(f"li[data-table='{table_id}']").count() == 0  # private tables are not listed
    assert join != table_id
    b.fill("form[data-role=join-code] input[name=code]", join)  # the code alone
    b.click("form[data-role=join-code] button[type=submit]")
    b.wait_for_selector(f".table-screen[data-table='{table_id}'][data-you]")
    a.click("[data-action=fill-bots]")
    a.wait_for_selector(".hand [data-card]")
    b.wait_for_selector(".hand [data-card]")
    # A spectator with the link: sees the table, never a hand.
    take_nickname(w, server, "观众")
    w.goto(f"{server}/#/table/{table_id}?code={join}")
    w.wait_for_selector(".table-screen[data-status=playing][data-synced=true] .seat[data-seat]")
    assert w.get_attribute(".table-screen", "data-you") == ""
    assert w.locator(".hand [data-card]").count() == 0
    # Every card the spectator's page shows is a played card on the table.
    assert w.evaluate("[...document.querySelectorAll('[data-card]')].every((e) => e.closest('.play-slot'))")
    for context in (host, guest, watcher):
        context.close()
