"""Issue 29, the whole evening on four phones (360×740), with nothing but the links people send each
other: one registers and makes a club, sets its rooms to 2 games and shares the invite link; three
friends (guests) open it and are members; the four play a 2-game session in a club room with the
page's own buttons (提示 and 出牌, 不要, 下一局); every phone shows the settlement (totals summing to
zero, R36) and the share button gives the result card (a PNG download where there is no share
sheet); the club page lists the session; then one adds another as a friend and invites her to a
table with one tap, and she sits there by accepting. Screenshots: /tmp/evening-*.png."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from .pages import WAIT_MS, my_turn, settle, take_nickname, take_turn
from .test_clubs import register

PHONE_TALL = {"width": 360, "height": 740}
SHOWN = "document.querySelector('[data-role=result], [data-role=settlement]') !== null"
"""A game's result, or (after the session's last game) its settlement, is on the page."""


def shot(page: Any, name: str) -> Path:
    settle(page)
    path = Path(f"/tmp/evening-{name}.png")
    page.screenshot(path=str(path))
    return path


def play_game(pages: list[Any]) -> None:
    """Each page plays its own turns until every page shows the game's result (or the settlement);
    looks at each page in turn, as test_four_players.py does (a wait on one would hold the others)."""
    deadline = time.monotonic() + 300
    while not all(page.evaluate(SHOWN) for page in pages):
        assert time.monotonic() < deadline, "the game did not end in time"
        acted = False
        for page in pages:
            if not page.evaluate(SHOWN) and my_turn(page):
                take_turn(page)
                acted = True
        if not acted:
            pages[0].wait_for_timeout(30)  # another page's turn is being answered: look again


def test_an_evening_of_four_friends_on_their_phones(browser: Any, server: str, tmp_path: Path) -> None:
    contexts = [browser.new_context(viewport=PHONE_TALL, accept_downloads=True) for _ in range(4)]
    pages = [c.new_page() for c in contexts]
    errors: list[str] = []
    for page in pages:
        page.on("pageerror", lambda error: errors.append(str(error)))
    owner, ann, bob, cat = pages
    for page, name in zip(pages, ["东家", "阿安", "阿波", "阿猫"], strict=True):
        take_nickname(page, server, name)
    register(owner, f"eve{int(time.time() * 1000) % 10**9}")

    # a club, its rooms set to 2 games, and its invite link
    owner.click("[data-action=clubs]")
    owner.wait_for_selector("[data-role=create-club]")
    owner.fill("input[name=club_name]", "周五牌局")
    owner.click("[data-action=create-club]")
    owner.wait_for_selector("[data-role=invite-link]")
    owner.select_option("form[data-role=club-preset] select[name=games]", "2")
    owner.click("[data-action=save-preset]")
    owner.wait_for_function(
        "() => document.querySelector('form[data-role=club-preset] select[name=games]')?.value === '2'"
    )
    link = owner.input_value("[data-role=invite-link]")
    club_hash = link[link.index("#") :].split("?")[0]
    shot(owner, "1-club-made")
    for page in (ann, bob, cat):
        page.goto(link)
        page.wait_for_selector("[data-role=club-name]", timeout=WAIT_MS)
    shot(ann, "2-joined-by-link")

    # a club room: the owner opens it, the others enter from the club page
    owner.reload()
    owner.wait_for_function("() => document.querySelectorAll('[data-role=club-members] li').length === 4")
    owner.click("[data-action=new-room]")
    owner.wait_for_selector(".table-screen[data-you]", timeout=WAIT_MS)
    table = owner.get_attribute(".table-screen", "data-table")
    for page in (ann, bob, cat):
        page.reload()
        page.locator("[data-role=club-rooms] [data-action=enter-room]").click(timeout=WAIT_MS)
        page.wait_for_selector(f".table-screen[data-table='{table}'][data-you]", timeout=WAIT_MS)
    for page in pages:
        page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
    name = bob.locator(".me-bar .name").bounding_box()
    assert name is not None and name["height"] < 24, name  # one line, not 阿 / 波 / (你)
    shot(bob, "3-playing")

    play_game(pages)
    assert not any(page.locator("[data-role=settlement]").count() for page in pages)  # one of two
    assert "本场第 1 局，共 2 局" in cat.inner_text("[data-role=session-progress]")
    shot(cat, "4-first-game-over")
    for page in pages:
        page.click("[data-action=next-game]", timeout=WAIT_MS)
    for page in pages:
        page.wait_for_selector(
            ".table-screen[data-status=playing]:not([data-over=true]) .hand [data-card]", timeout=WAIT_MS
        )
    play_game(pages)

    # the settlement on every phone, and its card
    for page in pages:
        page.wait_for_selector("[data-role=settlement] [data-role=session-verdict]", timeout=WAIT_MS)
        assert page.locator("[data-role=settlement] tr[data-seat]").count() == 4
        verdict = page.inner_text("[data-role=session-verdict]")
        assert verdict.startswith(("你赢了", "你输了", "你不输不赢")), verdict
    rows = owner.eval_on_selector_all("tr[data-seat]", "rs => rs.map((r) => r.dataset.total)")
    totals = [int(x) for x in rows]
    assert sum(totals) == 0, totals  # R36
    shot(owner, "5-settlement")
    shot(ann, "5-settlement-ann")
    assert not owner.evaluate("typeof navigator.canShare === 'function'")  # headless: the download
    with owner.expect_download(timeout=WAIT_MS) as download:
        owner.click("[data-action=share-card]")
    card = tmp_path / "card.png"
    download.value.save_as(card)
    assert card.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    Path("/tmp/evening-6-card.png").write_bytes(card.read_bytes())

    # the club page lists the session, with everyone's total
    ann.goto(f"{server}/{club_hash}")
    session = ann.locator("[data-role=club-sessions] li:has([data-action=session])").first
    session.wait_for(timeout=WAIT_MS)
    listed = session.inner_text()
    assert all(name in listed for name in ("东家", "阿安", "阿波", "阿猫")), listed
    session.scroll_into_view_if_needed()
    shot(ann, "7-club-lists-the-session")

    # the session is over: nobody is offered a way back to its table, nor shown sitting there
    seats = ann.evaluate(
        "() => fetch('/api/me/seats', {headers: {Authorization: 'Bearer ' + "
        "localStorage.getItem('niugui.token')}}).then((r) => r.json())"
    )
    assert seats == {"seats": []}, seats

    # friends: the owner adds 阿安 by her ID, she accepts; he invites her to a table with one tap
    ann_id = ann.evaluate("window.niugui.session.account.id")
    for page in (owner, ann):
        page.goto(server + "/")
        page.wait_for_selector("#conn-banner[data-status=online]", state="attached", timeout=WAIT_MS)
        page.click("[data-action=friends]")
        page.wait_for_selector("[data-role=friends-body][data-ready=true]", timeout=WAIT_MS)
    owner.fill("form[data-role=add-friend] input[name=friend_id]", ann_id)
    owner.click("form[data-role=add-friend] [data-action=add-friend]")
    owner.wait_for_selector(f"li[data-role=outgoing][data-account='{ann_id}']", timeout=WAIT_MS)
    ann.click("[data-action=back]")
    ann.click("[data-action=friends]")
    ann.click("li[data-role=incoming] [data-action=accept]", timeout=WAIT_MS)
    ann.wait_for_selector("li[data-role=friend]:has-text('东家')", timeout=WAIT_MS)
    shot(ann, "8-friends")
    ann.click("[data-action=back]")
    owner.click("[data-action=back]")
    owner.fill("form[data-role=create-table] input[name=turn_seconds]", "60")
    owner.check("form[data-role=create-table] input[name=private]")
    owner.click("button[data-action=create-table]")
    owner.wait_for_selector(".table-screen[data-you]", timeout=WAIT_MS)
    second = owner.get_attribute(".table-screen", "data-table")
    owner.click("[data-action=invite-friends]", timeout=WAIT_MS)
    owner.click(f"li[data-role=online-friend][data-account='{ann_id}'] [data-action=invite-friend]")
    invitation = ann.wait_for_selector(f"[data-role=invitation][data-table='{second}']", timeout=WAIT_MS)
    assert "东家" in invitation.inner_text()
    shot(ann, "9-invited")
    ann.click("[data-action=accept-invitation]")
    ann.wait_for_selector(f".table-screen[data-table='{second}']:not([data-you=''])", timeout=WAIT_MS)
    shot(ann, "10-seated-by-invitation")
    assert not errors, errors
    for context in contexts:
        context.close()
