"""Issue 29 (clubs), on phones at 360×740: one person registers and makes a club from the lobby's
俱乐部, shares its invite link; three friends (guests) open the link and are members; the four play
a game in a club room; the club page shows who is online and at which room, then lists the session
and the standings. No page ever shows a card of another hand on the club page."""

from __future__ import annotations

import time
from typing import Any

from .conftest import screenshot
from .pages import WAIT_MS, my_turn, take_nickname, take_turn

PHONE_TALL = {"width": 360, "height": 740}


def register(page: Any, username: str) -> None:
    """The lobby's 注册 box: a username and password for this guest's account."""
    page.click("[data-role=register] summary")
    page.fill("[data-role=register] input[name=username]", username)
    page.fill("[data-role=register] input[name=password]", "correct horse")
    page.click("[data-role=register] button[type=submit]")
    page.wait_for_selector("[data-role=register]", state="detached")
    page.wait_for_selector("#conn-banner[data-status=online]", state="attached", timeout=WAIT_MS)


def test_four_friends_make_a_club_join_by_link_and_play_in_its_room(browser: Any, server: str) -> None:
    contexts = [browser.new_context(viewport=PHONE_TALL) for _ in range(4)]
    pages = [c.new_page() for c in contexts]
    errors: list[str] = []
    for page in pages:
        page.on("pageerror", lambda error: errors.append(str(error)))
    owner, *friends = pages
    for i, page in enumerate(pages):
        take_nickname(page, server, ["东家", "阿安", "阿波", "阿猫"][i])
    register(owner, f"club{int(time.time() * 1000) % 10**9}")

    owner.click("[data-action=clubs]")
    owner.wait_for_selector("[data-role=create-club]")
    owner.fill("input[name=club_name]", "周五牌局")
    owner.click("[data-action=create-club]")
    owner.wait_for_selector("[data-role=invite-link]")
    link = owner.input_value("[data-role=invite-link]")
    assert "#/club/" in link and "?code=" in link
    club_hash = link[link.index("#") :].split("?")[0]

    for page in friends:  # the link joins the club and opens its page (without the code)
        page.goto(link)
        page.wait_for_selector("[data-role=club-name]", timeout=WAIT_MS)
        page.wait_for_function("() => !location.hash.includes('code=')")
        assert "周五牌局" in page.inner_text("[data-role=club-name]")
    owner.reload()  # the owner's club page, read again
    owner.wait_for_function("() => document.querySelectorAll('[data-role=club-members] li').length === 4")
    screenshot(owner, "club-page-members")

    owner.click("[data-action=new-room]")
    owner.wait_for_selector(".table-screen[data-you]", timeout=WAIT_MS)
    table_id = owner.get_attribute(".table-screen", "data-table")
    for page in friends:
        page.reload()  # the club page, read again: the new room is there
        enter = page.locator("[data-role=club-rooms] [data-action=enter-room]")
        enter.wait_for(timeout=WAIT_MS)
        enter.click()
        page.wait_for_selector(f".table-screen[data-table='{table_id}'][data-you]", timeout=WAIT_MS)
    for page in pages:
        page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)

    deadline = time.monotonic() + 240
    while not all(p.get_attribute(".table-screen", "data-over") == "true" for p in pages):
        assert time.monotonic() < deadline, "the game did not end in time"
        acted = False
        for page in pages:
            if my_turn(page):
                assert take_turn(page)
                acted = True
                break
        if not acted:
            pages[0].wait_for_timeout(30)
    for page in pages:
        page.wait_for_selector("[data-role=result]", timeout=WAIT_MS)

    watcher = browser.new_context(viewport=PHONE_TALL).new_page()  # the club page of a fifth device
    watcher.on("pageerror", lambda error: errors.append(str(error)))
    token = owner.evaluate("() => localStorage.getItem('niugui.token')")
    account = owner.evaluate("() => localStorage.getItem('niugui.account')")
    watcher.goto(server + "/")
    watcher.evaluate(
        "([t, a]) => { localStorage.setItem('niugui.token', t); localStorage.setItem('niugui.account', a); }",
        [token, account],
    )
    watcher.goto(server + "/" + club_hash)
    watcher.wait_for_selector("[data-role=club-sessions] [data-action=session]", timeout=WAIT_MS)
    watcher.wait_for_function(
        "() => document.querySelectorAll('[data-role=club-standings] li b').length === 4"
    )
    assert watcher.inner_text("[data-role=club-members]").count("●") == 4  # the four are online
    text = watcher.inner_text("[data-role=club]")
    assert "data-card" not in watcher.content()  # nothing of a hand on the club page
    totals = watcher.locator("[data-role=club-standings] li b").all_inner_texts()
    assert sum(int(x) for x in totals) == 0, totals  # R36: the standings sum to zero
    assert "东家" in text and "阿猫" in text
    screenshot(watcher, "club-page-after-session")
    watcher.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    screenshot(watcher, "club-page-standings")
    assert not errors, errors
    for c in contexts:
        c.close()
