"""Issue 29, sessions, on phones (360×740): two people at a private 4-game table play game 1, one
proposes 解散, the other sees the vote with its countdown and agrees; both then see the settlement
(每人总分、赢局、上游、最佳、名次, and 你赢了/你输了 for the reader), and the share button gives the
result card (the share sheet where the browser has one, else a PNG download). The history lists the
session afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import screenshot
from .pages import WAIT_MS, play_to_the_end, settle, take_nickname

PHONE = {"width": 360, "height": 740}


def test_a_dissolved_session_shows_its_settlement_and_shares_its_card(
    browser: Any, server: str, tmp_path: Path
) -> None:
    contexts = [browser.new_context(viewport=PHONE, accept_downloads=True) for _ in range(2)]
    ann, bob = pages = [c.new_page() for c in contexts]
    errors: list[str] = []
    for page in pages:
        page.on("pageerror", lambda error: errors.append(str(error)))
    take_nickname(ann, server, "阿丽")
    take_nickname(bob, server, "小明")
    form = "form[data-role=create-table]"
    ann.fill(f"{form} input[name=turn_seconds]", "120")
    ann.check(f"{form} input[name=private]")
    ann.select_option(f"{form} select[name=games]", "4")
    ann.click("button[data-action=create-table]")
    ann.wait_for_selector("[data-role=join-code]", timeout=WAIT_MS)
    table = ann.get_attribute(".table-screen", "data-table")
    code = ann.get_attribute("[data-role=join-code]", "data-join")
    bob.goto(f"{server}/#/table/{table}?code={code}")
    bob.click("[data-action=sit]", timeout=WAIT_MS)
    bob.wait_for_selector(".table-screen[data-you]", timeout=WAIT_MS)
    ann.click("[data-action=fill-bots]")
    for page in pages:
        page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
    play_to_the_end(pages)
    ann.click("[data-action=close-result]")
    ann.click("[data-action=dissolve]")
    bob.wait_for_selector("[data-role=dissolve-vote] [data-action=dissolve-agree]", timeout=WAIT_MS)
    assert "阿丽 提议解散本场" in bob.inner_text("[data-role=dissolve-vote]")
    assert "1/2 人同意" in bob.inner_text("[data-role=dissolve-vote]")
    settle(bob)
    vote_shot = screenshot(bob, "issue29-dissolve-vote-phone")
    bob.click("[data-action=dissolve-agree]")
    for page in pages:
        page.wait_for_selector("[data-role=settlement]", timeout=WAIT_MS)
        text = page.inner_text("[data-role=settlement]")
        assert "结算" in text and "全体同意，本场提前解散" in text
        assert page.locator("[data-role=settlement] tr[data-seat]").count() == 4
        verdict = page.inner_text("[data-role=session-verdict]")
        assert verdict.startswith(("你赢了", "你输了", "你不输不赢")), verdict
    rows = ann.eval_on_selector_all("tr[data-seat]", "rs => rs.map((r) => r.dataset.total)")
    totals = [int(x) for x in rows]
    assert sum(totals) == 0  # R36
    named = "本场赢家" in ann.inner_text("[data-role=settlement]")
    assert named == (max(totals) > 0)  # no winner when everyone broke even
    settle(ann)
    shots = [vote_shot, screenshot(ann, "issue29-settlement-phone"), screenshot(bob, "issue29-settlement-2")]
    if ann.evaluate("typeof navigator.canShare === 'function'"):
        ann.click("[data-action=share-card]")  # the share sheet: nothing to check outside the browser
    else:
        with ann.expect_download(timeout=WAIT_MS) as download:
            ann.click("[data-action=share-card]")
        saved = tmp_path / "card.png"
        download.value.save_as(saved)
        assert saved.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bob.goto(f"{server}/#/history")  # the session is kept: bob's history lists it
    row = bob.locator(f"[data-role=my-sessions] tr[data-table='{table}']")
    row.wait_for(timeout=WAIT_MS)
    row.click()
    bob.wait_for_selector("[data-role=settlement] [data-role=session-verdict]", timeout=WAIT_MS)
    settle(bob)
    shots.append(screenshot(bob, "issue29-history-session-phone"))
    assert all(shot.exists() for shot in shots)
    assert not errors, errors
    for context in contexts:
        context.close()
