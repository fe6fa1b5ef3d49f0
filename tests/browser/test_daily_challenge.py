"""Issue 30, the daily challenge (每日复式) on phones at 360×740: from the lobby's card a player plays
today's first two boards against the bots, each board's end leading on (下一副, 成绩榜); the event
page then shows the live standings and, for each board they finished, everyone's results side by
side with a replay each. A second player who played board 1 only sees board 1's results and nothing
of board 2 (a board is shown only once played, or after the event). Both got the same deal and seat
on board 1 (duplicate: the same cards for everyone). Screenshots: /tmp/events-*.png."""

from __future__ import annotations

from typing import Any

from .pages import WAIT_MS, result_shown, take_nickname, take_turn, wait_my_turn_or_result

PHONE_TALL = {"width": 360, "height": 740}
NEW_TABLE = (
    "(t) => (document.querySelector('.table-screen[data-you]') || {dataset: {table: t}}).dataset.table !== t"
)
"""Seated at a table other than ``t`` (the next board's)."""
CARD_SAYS = (
    "(x) => (document.querySelector('[data-role=daily] [data-role=event-progress]') || {}).innerText"
    "?.includes(x)"
)
"""The lobby's 每日复式 card shows its progress as ``x`` (e.g. 2/8)."""


def shot(page: Any, name: str, full: bool = False) -> None:
    """A screenshot at /tmp/events-NAME.png; nothing may stick out sideways on the phone."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_TALL["width"], name
    page.screenshot(path=f"/tmp/events-{name}.png", full_page=full)


def play_board(page: Any) -> list[str]:
    """At a board's table: play this page's turns (the hint's play, or pass) until the result shows;
    returns the hand as dealt."""
    page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
    dealt: list[str] = page.locator(".hand [data-card]").evaluate_all("es => es.map((e) => e.dataset.card)")
    while True:
        wait_my_turn_or_result(page)
        if result_shown(page):
            return dealt
        assert take_turn(page), "the page showed its turn, then neither Hint nor Pass was enabled"


def start_from_lobby(page: Any, board: int) -> None:
    """The lobby's 每日复式 card: its button names the board to play next; tap it."""
    button = page.locator("[data-role=daily] [data-action=play-event]")
    button.wait_for(timeout=WAIT_MS)
    assert button.get_attribute("data-board") == str(board)
    button.click()
    page.wait_for_selector(".table-screen[data-you]", timeout=WAIT_MS)


def board_box(page: Any, board: int) -> Any:
    return page.locator(f"[data-role=event-board][data-board='{board}']")


def test_daily_challenge_two_boards_then_standings_and_results(browser: Any, server: str) -> None:
    errors: list[str] = []
    contexts = [browser.new_context(viewport=PHONE_TALL) for _ in range(2)]
    ann, bob = (c.new_page() for c in contexts)
    for page, name in ((ann, "阿安"), (bob, "阿波")):
        page.on("pageerror", lambda error: errors.append(str(error)))
        take_nickname(page, server, name)

    # 阿波 plays board 1 first, so that 阿安 has someone to be compared with on it
    start_from_lobby(bob, 1)
    bob_dealt = play_board(bob)

    ann.wait_for_selector("[data-role=daily] [data-role=event-progress]", timeout=WAIT_MS)
    assert "0/8" in ann.inner_text("[data-role=daily] [data-role=event-progress]")
    shot(ann, "lobby-card")
    start_from_lobby(ann, 1)
    ann.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
    shot(ann, "board-table")
    ann_dealt = play_board(ann)
    assert sorted(ann_dealt) == sorted(bob_dealt)  # duplicate: the same cards on the same board
    shot(ann, "board-over")

    table = ann.get_attribute(".table-screen", "data-table")
    ann.click("[data-role=result] [data-action=event-next]")  # 下一副, straight from the result
    ann.wait_for_function(NEW_TABLE, arg=table, timeout=WAIT_MS)
    play_board(ann)
    ann.click("[data-role=result] [data-action=event-standings]")  # 成绩榜
    ann.wait_for_selector("[data-role=event-standings]", timeout=WAIT_MS)

    mine = ann.locator("[data-role=event-standings] tr.you td")
    assert mine.nth(2).inner_text() == "2"  # boards played
    assert "2/8" in ann.inner_text("[data-role=event] [data-role=event-progress]")
    names = ann.locator("[data-role=event-standings] td.ev-name").all_inner_texts()
    assert len(names) == 2 and any("阿波" in n for n in names), names
    # board 1: both results side by side, their matchpoints adding up to n(n-1)/2 = 1, a replay each
    one = board_box(ann, 1)
    assert one.locator("tr[data-account]").count() == 2
    points = [float(x) for x in one.locator("tr[data-account] td:nth-child(3)").all_inner_texts()]
    assert sum(points) == 1, points
    assert one.locator("[data-action=event-replay]").count() == 2
    assert board_box(ann, 2).locator("tr[data-account]").count() == 1  # only 阿安 played board 2
    assert board_box(ann, 3).locator("tr[data-account]").count() == 0  # nobody's, not yet played
    shot(ann, "standings", full=True)

    # 阿波 sees board 1's results, but nothing of board 2, which he has not played
    bob.goto(server + "/#/")
    bob.wait_for_selector("[data-role=daily] [data-action=event-standings]", timeout=WAIT_MS)
    bob.click("[data-role=daily] [data-action=event-standings]")
    bob.wait_for_selector("[data-role=event-standings]", timeout=WAIT_MS)
    assert board_box(bob, 1).locator("tr[data-account]").count() == 2
    assert board_box(bob, 2).locator("tr, [data-action=event-replay]").count() == 0
    assert "data-card" not in bob.inner_html("[data-role=event]")

    ann.locator("[data-role=event-board][data-board='1'] [data-action=event-replay]").first.click()
    ann.wait_for_selector(".replay-screen [data-card]", timeout=WAIT_MS)  # a private table's replay opens
    shot(ann, "replay")

    ann.goto(server + "/#/")  # back in the lobby, the card has moved on
    ann.wait_for_function(CARD_SAYS, arg="2/8", timeout=WAIT_MS)
    assert ann.get_attribute("[data-role=daily] [data-action=play-event]", "data-board") == "3"
    ann.wait_for_selector("[data-role=tables] li", timeout=WAIT_MS)  # the lobby has read your seats too
    assert ann.locator("[data-role=my-seats]").count() == 0  # 下一副 and 成绩榜 stood up from finished boards
    ann.locator("[data-role=daily]").scroll_into_view_if_needed()
    shot(ann, "lobby-after")
    assert not errors, errors
    for c in contexts:
        c.close()


def test_event_words_exist_in_both_languages_and_readers(browser: Any, static_url: str) -> None:
    """The events screens' words in zh and en alike; a replay link keeps the private table's code; a
    table is an event's by what play_event told this tab (and by nothing else)."""
    page = browser.new_context().new_page()
    page.goto(static_url + "/index.html")
    keys = page.evaluate("async () => (await import('/js/eventwords.js')).EVENT_WORD_KEYS")
    assert set(keys["zh"]) == set(keys["en"])
    got = page.evaluate(
        """async () => {
          const ev = await import('/js/events.js');
          const play = await import('/js/eventplay.js');
          play.rememberTable('t1', 'e1');
          return {
            replay: ev.replayOf({ game_id: 7, replay: '/api/games/7/replay?code=ab12' }),
            open: ev.replayOf({ game_id: 8, replay: '/api/games/8/replay' }),
            mine: play.eventOfTable({ status: 'finished' }, 't1'),
            other: play.eventOfTable({ status: 'finished' }, 't2'),
            mp: [play.mpText(1.5), play.mpText(2), play.percentText(58.333), play.percentText(null)],
          };
        }"""
    )
    assert got["replay"] == {"gameId": 7, "code": "ab12"}
    assert got["open"] == {"gameId": 8, "code": None}
    assert (got["mine"], got["other"]) == ("e1", None)
    assert got["mp"] == ["1.5", "2", "58.3%", "—"]
    page.context.close()
