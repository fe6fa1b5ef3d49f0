"""Issue 28, point 1: four people at one table and a spectator. From the deal, before anyone has
played, each seat's own bar names its side as its own hand tells it (R10, R11): 黑方 and which black
card its partner holds, 双牛鬼, or 红方. Nobody else's page carries it: each seat's page shows one
side, its own, in its own bar; the spectator's page shows none."""

from __future__ import annotations

from typing import Any

from .conftest import DESKTOP, screenshot
from .pages import WAIT_MS, create_table, settle, take_nickname

PHONE = {"width": 360, "height": 740}
SIDES_JS = """() => [...document.querySelectorAll('[data-role=side]')].map((e) => ({
  side: e.dataset.side, text: e.textContent, bar: Boolean(e.closest('.me-bar')),
}))"""
HAND_JS = "() => [...document.querySelectorAll('.hand [data-card]')].map((e) => e.dataset.card)"


def expected(hand: list[str]) -> tuple[str, str]:
    """(side, a word its chip must say) from a dealt hand (R10), written out apart from the page."""
    black = {"S3", "S2"} & set(hand)
    if len(black) == 2:
        return "double", "双牛鬼"
    if black:
        return "black", "队友持♠2" if "S3" in black else "队友持♠3"
    return "red", "红方·队友未知"


def test_each_seat_and_only_it_sees_its_side_from_the_deal(browser: Any, server: str) -> None:
    contexts = [browser.new_context(viewport=PHONE if i % 2 == 0 else DESKTOP) for i in range(5)]
    pages = [c.new_page() for c in contexts]
    errors: list[str] = []
    for page in pages:
        page.on("pageerror", lambda error: errors.append(str(error)))
    players, watcher = pages[:4], pages[4]
    for i, page in enumerate(players):
        take_nickname(page, server, f"方{i + 1}")
    create_table(players[0], turn_seconds=120)
    table_id = players[0].get_attribute(".table-screen", "data-table")
    for page in players[1:]:
        page.click("[data-action=refresh]")
        row = page.locator(f"li[data-table='{table_id}'] [data-action=sit]")
        row.wait_for(timeout=WAIT_MS)
        row.click()
        page.wait_for_selector(f".table-screen[data-table='{table_id}'][data-you]")
    take_nickname(watcher, server, "看客")
    watcher.goto(f"{server}/#/table/{table_id}")
    watcher.wait_for_selector(".table-screen[data-status=playing][data-synced=true] .seat[data-seat]",
                              timeout=WAIT_MS)
    hands = []
    for page in players:
        page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
        page.wait_for_selector(".me-bar [data-role=side]", timeout=WAIT_MS)
        hands.append(page.evaluate(HAND_JS))
    assert sum(len(h) for h in hands) == 54, "read before anyone played: every card is in a hand"
    seen_sides = set()
    for i, (page, hand) in enumerate(zip(players, hands, strict=True)):
        side, word = expected(hand)
        seen_sides.add(side)
        chips = page.evaluate(SIDES_JS)
        assert len(chips) == 1 and chips[0]["bar"], chips  # one side on the page: its own, in its bar
        assert chips[0]["side"] == side and word in chips[0]["text"], (chips, sorted(hand))
        settle(page)
        screenshot(page, f"issue28-side-{side}-{'phone' if i % 2 == 0 else 'desktop'}")
    assert "black" in seen_sides or "double" in seen_sides
    assert watcher.evaluate(SIDES_JS) == []
    text = watcher.inner_text("body")
    assert not any(word in text for word in ("队友持", "一打三", "队友未知", "只有你能看到")), text
    screenshot(watcher, "issue28-side-spectator")
    assert not errors, errors
    for context in contexts:
        context.close()
