"""Issue 28, point 3: honest quick play and a next game after it, on phones (360×740).

- Before: the lobby and the queue say what is rated — a table bots complete for one person is not.
- Two people wait, fill the other seats with bots, play: the result says the game was rated (two
  people). Both tap 再来一局: the first sees 1/2 agreed on both pages; after the second, the same
  two sit together at a new table. 继续匹配 puts just you back in the queue.
- Four people from the queue play, all four tap 再来一局, and the same four sit at a new table.
- One person with bots: the result says it was not rated (one person), and the profile says why
  there is no rating yet.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import run_server, screenshot
from .pages import WAIT_MS, play_to_the_end, settle, take_nickname

PHONE = {"width": 360, "height": 740}


@pytest.fixture(scope="module")
def community_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with run_server(tmp_path_factory.mktemp("next-game"), 0.02, "--community", "bots_after=1") as url:
        yield url


def table_of(page: Any) -> str:
    table: str = page.get_attribute(".table-screen", "data-table") or ""
    return table


def test_two_people_play_again_together_after_quick_play(browser: Any, community_server: str) -> None:
    pages = [browser.new_context(viewport=PHONE).new_page() for _ in range(2)]
    errors: list[str] = []
    for n, page in enumerate(pages):
        page.on("pageerror", lambda error: errors.append(str(error)))
        take_nickname(page, community_server, f"再来{n}")
    hint = pages[0].inner_text("[data-role=quick-play]")
    assert "至少两位真人的牌局计入等级分" in hint and "不计入" in hint  # before: what is rated
    for page in pages:  # both agree to be taken into a table filled with bots (issue 33, finding 9)
        page.check("[name=qp_bots]")
        page.click("[data-action=quick-play]")
        page.wait_for_selector("[data-role=queue]", timeout=WAIT_MS)
    assert "不计入等级分" in pages[0].inner_text("[data-role=bots-unrated]")
    pages[0].wait_for_selector("[data-action=queue-bots]:enabled", timeout=WAIT_MS)
    pages[0].click("[data-action=queue-bots]")
    for page in pages:
        page.wait_for_selector(".table-screen[data-you] .hand [data-card]", timeout=WAIT_MS)
    first = table_of(pages[0])
    assert table_of(pages[1]) == first
    play_to_the_end(pages)
    for page in pages:  # after: it was rated, two people sat
        assert page.get_attribute("[data-role=rated]", "data-rated") == "rated_yes"
    pages[0].click("[data-action=rematch]")
    for page in pages:
        page.wait_for_selector("[data-action=rematch]:text('1/2')", timeout=WAIT_MS)
    assert pages[0].locator("[data-action=rematch]:disabled").count() == 1
    settle(pages[1])
    screenshot(pages[1], "issue28-rematch-phone")
    pages[1].click("[data-action=rematch]")
    for page in pages:
        page.wait_for_function(
            "(old) => { const t = document.querySelector('.table-screen[data-you]');"
            " return t && t.dataset.table !== old && document.querySelector('.hand [data-card]'); }",
            arg=first,
            timeout=WAIT_MS,
        )
    again = table_of(pages[0])
    assert again != first and table_of(pages[1]) == again
    names = pages[0].inner_text(".table-screen")
    assert "再来0" in names and "再来1" in names
    assert not errors, errors
    for page in pages:
        page.context.close()


def test_four_people_play_again_as_the_same_four(browser: Any, community_server: str) -> None:
    pages = [browser.new_context(viewport=PHONE).new_page() for _ in range(4)]
    for n, page in enumerate(pages):
        take_nickname(page, community_server, f"四人{n}")
    for page in pages:
        page.click("[data-action=quick-play]")
    for page in pages:
        page.wait_for_selector(".table-screen[data-you] .hand [data-card]", timeout=WAIT_MS)
    first = table_of(pages[0])
    assert {table_of(page) for page in pages} == {first}
    play_to_the_end(pages)
    for n, page in enumerate(pages):
        page.click("[data-action=rematch]")
        if n < 3:  # everyone sees how many agreed so far
            pages[0].wait_for_selector(f"[data-action=rematch]:text('{n + 1}/4')", timeout=WAIT_MS)
    for page in pages:
        page.wait_for_function(
            "(old) => { const t = document.querySelector('.table-screen[data-you]');"
            " return t && t.dataset.table !== old && document.querySelector('.hand [data-card]'); }",
            arg=first,
            timeout=WAIT_MS,
        )
    again = {table_of(page) for page in pages}
    assert len(again) == 1 and first not in again
    seated = pages[0].inner_text(".table-screen")
    assert all(f"四人{n}" in seated for n in range(4)) and pages[0].locator(".seat .avatar.bot").count() == 0
    for page in pages:
        page.context.close()


def test_one_person_with_bots_is_told_it_is_not_rated_and_can_keep_matching(
    browser: Any, community_server: str
) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    take_nickname(page, community_server, "独自")
    page.click("[data-action=quick-play]")
    page.wait_for_selector("[data-action=queue-bots]:enabled", timeout=WAIT_MS)
    page.click("[data-action=queue-bots]")
    page.wait_for_selector(".table-screen[data-you] .hand [data-card]", timeout=WAIT_MS)
    play_to_the_end([page])
    assert page.get_attribute("[data-role=rated]", "data-rated") == "rated_alone"
    assert "只有一位真人" in page.inner_text("[data-role=rated]")
    settle(page)
    screenshot(page, "issue28-result-unrated-phone")
    page.click("[data-action=keep-matching]")
    page.wait_for_selector("[data-role=queue]", timeout=WAIT_MS)  # back in the queue, alone
    page.click("[data-action=leave-queue]")
    page.click("[data-action=my-profile]")
    page.wait_for_selector("[data-role=unrated-why]", timeout=WAIT_MS)
    assert "至少两位真人" in page.inner_text("[data-role=unrated-why]")
    page.context.close()
