"""Friends on phones (issue 29, point 6): one adds the other by ID from the friends panel, the other
accepts; at her private table the first invites her friend with one tap, and the friend's page shows
the invitation, whose Accept seats her at that table. Screenshots at 360×740."""

from __future__ import annotations

from typing import Any

from .conftest import screenshot
from .pages import WAIT_MS, create_table, take_nickname

PHONE_TALL = {"width": 360, "height": 740}


def open_friends(page: Any) -> None:
    page.click("[data-action=friends]")
    page.wait_for_selector("[data-role=friends-body][data-ready=true]", timeout=WAIT_MS)


def test_add_a_friend_accept_and_invite_them_to_a_table(browser: Any, server: str) -> None:
    ann = browser.new_context(viewport=PHONE_TALL).new_page()
    bea = browser.new_context(viewport=PHONE_TALL).new_page()
    take_nickname(ann, server, "阿安")
    take_nickname(bea, server, "阿贝")
    bea_id = bea.evaluate("window.niugui.session.account.id")

    open_friends(ann)
    ann.fill("form[data-role=add-friend] input[name=friend_id]", bea_id)
    ann.click("form[data-role=add-friend] [data-action=add-friend]")
    ann.wait_for_selector(f"li[data-role=outgoing][data-account='{bea_id}']", timeout=WAIT_MS)
    screenshot(ann, "friends-request-sent")

    open_friends(bea)
    bea.click("li[data-role=incoming] [data-action=accept]")
    bea.wait_for_selector("li[data-role=friend][data-online=true]:has-text('阿安')", timeout=WAIT_MS)
    screenshot(bea, "friends-list")

    ann.click("[data-action=back]")
    create_table(ann, turn_seconds=60, private=True)
    table_id = ann.get_attribute(".table-screen", "data-table")
    ann.click("[data-action=invite-friends]", timeout=WAIT_MS)  # she sits already: she made it
    ann.click(f"li[data-role=online-friend][data-account='{bea_id}'] [data-action=invite-friend]")
    ann.wait_for_selector("[data-role=toast]:has-text('阿贝')", timeout=WAIT_MS)
    screenshot(ann, "friends-invite-at-table")

    card = bea.wait_for_selector(f"[data-role=invitation][data-table='{table_id}']", timeout=WAIT_MS)
    assert "阿安" in card.inner_text()
    screenshot(bea, "friends-invitation")
    bea.click("[data-action=accept-invitation]")
    bea.wait_for_selector(f".table-screen[data-table='{table_id}'][data-status]", timeout=WAIT_MS)
    bea.wait_for_selector(".table-screen:not([data-you=''])", timeout=WAIT_MS)  # accepted: she sits
    assert bea.get_attribute(".table-screen", "data-you") == "1"  # the seat offered, the first free one
    screenshot(bea, "friends-invited-seated")
