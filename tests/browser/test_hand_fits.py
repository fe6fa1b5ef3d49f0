"""Issue 10: the largest hand a seat can hold fits a 360×740 phone — R9 deals 14 cards to the first
drawer and the next seat — its cards overlapped, none outside the screen, each with a strip of at
least 18 px that a tap reaches (its rank and suit show there), with 理牌 groups too.

The page's own TableView draws a hand of 14 from a view shaped as the protocol sends it.
"""

from __future__ import annotations

from typing import Any

from .conftest import screenshot
from .pages import settle

MIN_STRIP = 18
HAND = ["D4", "C4", "H5", "S5", "D7", "C8", "H9", "ST", "DJ", "CQ", "HK", "SA", "S2", "RJ"]  # 14 (R9)

DRAW_JS = """async (hand) => {
  const { TableView } = await import('/js/table.js');
  document.body.innerHTML = '<div id="app"><div class="table-screen"></div></div>';
  const view = { seat: 0, first_drawer: 0, hand, counts: [hand.length, 14, 13, 13], to_move: 0,
                 can_pass: false, legal_plays: [], trick: [], over: false, result: null, current: null,
                 marks: [[], [], [], []], finish: [] };
  const seats = [0, 1, 2, 3].map((s) => ({ seat: s, online: true, autoplay: false, ready: true,
    player: { id: 'p' + s, nickname: s ? '' : '我', bot: s ? 'expert' : null } }));
  window.tableView = new TableView(document.querySelector('.table-screen'), {}, {});
  window.tableView.update({ view, me: 0, seats, totals: [0, 0, 0, 0], deadline: null, flip: null });
}"""

STRIPS_JS = """() => {
  const cards = [...document.querySelectorAll('.hand .card')];
  return cards.map((card, n) => {
    const r = card.getBoundingClientRect();
    const next = cards[n + 1] ? cards[n + 1].getBoundingClientRect().left : r.right;
    const strip = Math.min(r.right, next) - r.left;
    const hit = document.elementFromPoint(r.left + strip / 2, r.top + 12);
    return { code: card.dataset.card, left: r.left, right: r.right, strip,
             hits: Boolean(hit && hit.closest('.card') === card) };
  });
}"""


def strips(page: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(STRIPS_JS)
    return found


def check_fits(page: Any) -> None:
    width = page.viewport_size["width"]
    cards = strips(page)
    assert [c["code"] for c in cards if c["code"]] and len(cards) == len(HAND)
    outside = [c["code"] for c in cards if c["left"] < 0 or c["right"] > width]
    assert not outside, f"cards outside the {width} px screen: {outside}"
    narrow = [(c["code"], c["strip"]) for c in cards if c["strip"] < MIN_STRIP]
    assert not narrow, f"strips narrower than {MIN_STRIP} px: {narrow}"
    missed = [c["code"] for c in cards if not c["hits"]]
    assert not missed, f"a tap on the strip of {missed} does not reach the card"
    assert page.evaluate("() => { const w = document.querySelector('.hand-wrap'); "
                         "return w.scrollWidth <= w.clientWidth; }"), "the hand scrolls"


def test_R9_a_14_card_hand_fits_a_360_px_phone_with_and_without_groups(
    browser: Any, static_url: str
) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(f"{static_url}/index.html#/nothing")
    page.wait_for_function("() => window.niugui")
    page.evaluate(DRAW_JS, HAND)
    settle(page)
    check_fits(page)
    screenshot(page, "hand-14-phone-360x740")

    # 理牌: six groups of one card at the left, the rest after: seven gaps between groups.
    for _ in range(6):
        ungrouped = page.locator(".hand .card:not(.grouped)").first
        box = ungrouped.bounding_box()
        page.mouse.click(box["x"] + 4, box["y"] + 12)
        page.wait_for_selector(".hand .card.selected")
        page.click("[data-action=group]")
        page.wait_for_function("(n) => document.querySelectorAll('.hand .card.grouped').length === n",
                               arg=_ + 1)
    assert page.locator(".hand .card.group-start").count() == 6
    settle(page)
    check_fits(page)
    screenshot(page, "hand-14-grouped-phone-360x740")

    page.set_viewport_size({"width": 320, "height": 640})  # a smaller phone: fitted again on resize
    page.wait_for_function("() => document.querySelector('.hand .card:last-child')"
                           ".getBoundingClientRect().right <= 320")
    check_fits(page)
    context.close()


def test_with_no_group_no_card_starts_one(browser: Any, static_url: str) -> None:
    """With no 理牌 group, no card is marked as a group's first (each such mark widens the hand)."""
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.goto(f"{static_url}/index.html#/nothing")
    page.wait_for_function("() => window.niugui")
    page.evaluate(DRAW_JS, HAND)
    assert page.locator(".hand .card").count() == 14
    assert page.locator(".hand .card.group-start").count() == 0
    page.close()
