"""Issue 28, point 4: fair timers, on a phone (360×740) and a desktop (1280×800). Your turn's timer
runs on while you read the rules card (the others wait), so the page keeps your clock in sight above
the card, warns at 5 s, and when time runs out says so without covering the play buttons or the
hand — and says that one more expiry hands the seat to 托管 (two in a row, as the server rules)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import DESKTOP, screenshot
from .pages import MY_TURN, WAIT_MS, create_table, settle, take_nickname

PHONE = {"width": 360, "height": 740}
ON_TOP_JS = """() => {
  const clock = document.querySelector('[data-role=turn-clock]');
  const r = clock.getBoundingClientRect();
  clock.style.pointerEvents = 'auto'; // (taps go through it; hit-testing shows what is painted on top)
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  clock.style.pointerEvents = '';
  return { on_top: hit === clock, text: clock.textContent, low: clock.classList.contains('low') };
}"""
RECT_JS = "(sel) => [...document.querySelectorAll(sel)].map((e) => { const r = e.getBoundingClientRect();"
RECT_JS += " return [r.left, r.top, r.right, r.bottom]; }).filter((r) => r[2] > r[0] && r[3] > r[1])"


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_your_clock_stays_above_the_rules_card_and_warns(browser: Any, server: str, viewport: Any) -> None:
    page = browser.new_context(viewport=viewport).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    take_nickname(page, server, "看规则")
    create_table(page, turn_seconds=8)
    page.click("[data-action=fill-bots]")
    page.wait_for_function(MY_TURN, timeout=WAIT_MS)
    page.click("[data-action=help]")
    page.wait_for_selector("[data-role=help]")
    page.wait_for_selector("[data-role=turn-clock]:not(.hidden)", timeout=WAIT_MS)
    shown = page.evaluate(ON_TOP_JS)
    assert shown["on_top"], shown  # above the rules card, not under it
    assert "轮到你" in shown["text"]
    page.wait_for_selector("[data-role=turn-clock].low", timeout=WAIT_MS)  # the warning at 5 s
    assert "只剩" in page.inner_text("[data-role=turn-clock]")
    settle(page)
    screenshot(page, f"issue28-clock-over-rules-{'phone' if viewport is PHONE else 'desktop'}")
    notice = page.wait_for_selector("[data-role=timeout-notice]", timeout=WAIT_MS)
    assert "再超时一次将由托管代打" in notice.inner_text()
    page.click("[data-action=close-help]")
    notice_box = page.evaluate(RECT_JS, "[data-role=timeout-notice]")
    assert notice_box, "the notice is shown"
    controls = page.evaluate(RECT_JS, ".actions .btn, .hand .card")
    assert controls
    assert not any(overlaps(notice_box[0], box) for box in controls), (notice_box, controls)
    assert page.locator("[data-role=turn-clock]:not(.hidden)").count() == 0  # no panel: the bar's clock
    assert not errors, errors
    page.context.close()
