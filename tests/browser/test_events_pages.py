"""Issue 30 on phones at 360×740, the rest of the events page: a registered account makes its club's
duplicate event from the club's page (创建比赛), gets the link to share, plays one board of it and
reaches the standings; the club's page then lists the event. A Swiss's page takes registrations
(报名, 取消报名, 报名 again), and once its owner starts it (four people, one table) the round's
table is shown — who sits where, the absent ones 托管 — with the way to one's own table; the
round's start takes the present entrant to it. Screenshots: /tmp/events2-*.png."""

from __future__ import annotations

import time
from typing import Any

import httpx

from .pages import WAIT_MS, result_shown, take_nickname, take_turn, wait_my_turn_or_result
from .test_clubs import register

PHONE_TALL = {"width": 360, "height": 740}


PLACES = "cs => cs.map((c) => [c.parentElement.dataset.account, +c.dataset.place])"
"""A round's table: each person's place in its game (0 = 上游)."""
SCORES = "rs => rs.map((r) => [r.dataset.account, +r.children[2].innerText])"
"""The Swiss standings: each person's score."""
NOT_AT = "(t) => ((document.querySelector('.table-screen[data-you]') || {}).dataset || {table: t}).table != t"
"""Seated at a table other than ``t``."""

NOTE_ROUND_BEGAN = """() => new MutationObserver(() => {
  if (document.querySelector('[data-role=round-began]')) window.roundBegan = true;
}).observe(document.body, { childList: true, subtree: true })"""
"""Note (window.roundBegan) the toast saying the next round began, however briefly it shows."""


def shot(page: Any, name: str, full: bool = False) -> None:
    """A screenshot at /tmp/events2-NAME.png; nothing may stick out sideways on the phone."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_TALL["width"], name
    page.screenshot(path=f"/tmp/events2-{name}.png", full_page=full)


def token_of(page: Any) -> str:
    token: str = page.evaluate("async () => (await import('/js/net.js')).session.token")
    return token


def call(server: str, method: str, path: str, token: str | None, **body: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    reply = httpx.request(method, server + path, headers=headers, json=body or None, timeout=60)
    assert reply.status_code == 200, (method, path, reply.status_code, reply.text)
    return reply.json()


def new_account(server: str, name: str, user: str) -> str:
    """A registered account made over HTTP (no page): its session token."""
    body = {"username": unique(user), "password": "correct horse", "nickname": name}
    token: str = call(server, "POST", "/api/register", None, **body)["token"]
    return token


def unique(prefix: str) -> str:
    return f"{prefix}{int(time.time() * 1000) % 10**9}"


def play_to_result(page: Any) -> None:
    """At a table: this page's turns (the hint's play, or pass) until the game's result shows."""
    while True:
        wait_my_turn_or_result(page)
        if result_shown(page):
            return
        assert take_turn(page), "the page showed its turn, then neither Hint nor Pass was enabled"


def test_a_club_duplicate_event_made_from_its_club_page_one_board_played(browser: Any, server: str) -> None:
    errors: list[str] = []
    page = browser.new_context(viewport=PHONE_TALL).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    take_nickname(page, server, "东家")
    register(page, unique("ev"))
    club = call(server, "POST", "/api/clubs", token_of(page), name="周六牌友")["club"]["id"]

    page.goto(f"{server}/#/club/{club}")
    page.wait_for_selector("[data-role=club] [data-role=event-list] li", timeout=WAIT_MS)
    page.click("[data-role=club] [data-role=events] [data-action=new-event]")
    page.wait_for_selector("[data-role=new-event] form", timeout=WAIT_MS)
    assert page.input_value("select[name=club]") == club  # from the club's page: its event
    assert page.is_hidden("input[name=rounds]")  # a Swiss's settings only for a Swiss
    page.select_option("select[name=kind]", "swiss")  # a Swiss's settings instead of the boards
    assert page.is_visible("input[name=rounds]") and page.is_hidden("select[name=boards]")
    shot(page, "new-swiss", full=True)
    page.select_option("select[name=kind]", "duplicate")
    page.select_option("select[name=start]", "at")  # 定时开始 with no time: said, nothing made
    page.click("[data-action=create-event]")
    page.wait_for_selector("[data-role=new-event-error]:has-text('开始时间')", timeout=WAIT_MS)
    page.select_option("select[name=start]", "now")
    page.fill("input[name=name]", "周六复式")
    page.select_option("select[name=boards]", "4")
    shot(page, "new-duplicate", full=True)
    page.click("[data-action=create-event]")

    page.wait_for_selector("[data-role=event] [data-role=event-link]", timeout=WAIT_MS)
    link = page.input_value("[data-role=event-link]")
    event = link.rsplit("#/event/", 1)[1]
    assert page.inner_text("[data-role=event-name]").startswith("周六复式")
    shown = call(server, "GET", f"/api/events/{event}", token_of(page))["event"]
    assert (shown["club"], shown["settings"]["boards"], shown["status"]) == (club, 4, "open")
    shot(page, "event-made")

    page.click("[data-role=event] [data-action=play-event]")
    page.wait_for_selector(".table-screen[data-you] .hand [data-card]", timeout=WAIT_MS)
    play_to_result(page)
    shot(page, "board-over")
    page.click("[data-role=result] [data-action=event-standings]")  # 成绩榜, by the table's own word
    page.wait_for_selector("[data-role=event-standings] tr.you", timeout=WAIT_MS)
    assert page.locator("[data-role=event-standings] tr.you td").nth(2).inner_text() == "1"
    assert "1/4" in page.inner_text("[data-role=event] [data-role=event-progress]")

    page.goto(f"{server}/#/club/{club}")  # the club's page lists its event
    page.wait_for_selector(f"[data-role=event-list] li[data-event='{event}']", timeout=WAIT_MS)
    assert page.locator("[data-role=event-list] li[data-event]").count() == 1  # the refused try made none
    page.locator("[data-role=events]").scroll_into_view_if_needed()
    shot(page, "club-events")
    page.goto(f"{server}/#/")  # and so does the lobby, under the daily challenge
    page.wait_for_selector(f"[data-role=events] li[data-event='{event}']", timeout=WAIT_MS)
    page.locator("[data-role=events]").scroll_into_view_if_needed()
    shot(page, "lobby-events")
    assert not errors, errors
    page.context.close()


def test_a_swiss_page_registration_then_its_round_table(browser: Any, server: str) -> None:
    errors: list[str] = []
    page = browser.new_context(viewport=PHONE_TALL).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    take_nickname(page, server, "阿安")
    register(page, unique("sw"))
    owner, *others = (new_account(server, n, f"s{i}") for i, n in enumerate(("东家", "阿波", "阿猫")))
    event = call(server, "POST", "/api/events", owner, kind="swiss", name="周末瑞士", rounds=2)["event"]["id"]
    for token in (owner, *others):
        call(server, "POST", f"/api/events/{event}/join", token)

    page.goto(f"{server}/#/event/{event}")
    page.wait_for_selector("[data-role=swiss-registration] [data-action=swiss-join]", timeout=WAIT_MS)
    assert page.locator("[data-role=swiss-entrants] li").count() == 3
    assert page.locator("[data-action=swiss-start]").count() == 0  # the owner's, not 阿安's
    shot(page, "swiss-open")
    page.click("[data-action=swiss-join]")
    page.wait_for_selector("[data-action=swiss-leave]", timeout=WAIT_MS)
    assert page.locator("[data-role=swiss-entrants] li.me").count() == 1
    page.click("[data-action=swiss-leave]")  # 取消报名 before the start, then 报名 again
    page.wait_for_selector("[data-action=swiss-join]", timeout=WAIT_MS)
    assert page.locator("[data-role=swiss-entrants] li").count() == 3
    page.click("[data-action=swiss-join]")
    page.wait_for_selector("[data-action=swiss-leave]", timeout=WAIT_MS)
    shot(page, "swiss-registered")

    call(server, "POST", f"/api/events/{event}/start", owner)  # round 1: the four at one table
    page.wait_for_selector(".table-screen[data-you] .hand [data-card]", timeout=WAIT_MS)  # 阿安 seated
    first = page.get_attribute(".table-screen", "data-table")
    shot(page, "swiss-table")
    page.evaluate(NOTE_ROUND_BEGAN)
    play_to_result(page)  # the round's one game; the three absent are played for (托管)
    page.wait_for_function("() => window.roundBegan", timeout=WAIT_MS)  # round 2's, said at the result

    # round 1 over: its places on the round's page, and the standings score them (R30)
    page.goto(f"{server}/#/event/{event}")
    done = "[data-role=swiss-round][data-round='1'] [data-role=swiss-table] tr[data-account] td[data-place]"
    page.wait_for_selector(done, timeout=WAIT_MS)
    box = page.locator(f"[data-role=swiss-table][data-table='{first}']")
    seats = box.locator("tr[data-seat] td.ev-name").all_inner_texts()
    assert len(seats) == 4 and sum("阿安" in s for s in seats) == 1, seats
    assert box.locator("tr[data-seat] .tag").count() == 3  # the three not connected: 托管
    places = dict(page.locator(done).evaluate_all(PLACES))
    scores = dict(page.locator("[data-role=swiss-standings] tr[data-account]").evaluate_all(SCORES))
    assert len(places) == 4 and min(places.values()) == 0, places  # someone went out first
    assert scores == {who: (3, 2, 1, 0)[place] for who, place in places.items()}, (scores, places)
    page.wait_for_selector("[data-role=swiss-round][data-round='2']", timeout=WAIT_MS)  # round 2 began
    shot(page, "swiss-round", full=True)
    page.click("[data-action=play-event]")  # 去我的牌桌: round 2's
    page.wait_for_function(NOT_AT, arg=first, timeout=WAIT_MS)
    page.wait_for_selector(".table-screen[data-you] .hand [data-card]", timeout=WAIT_MS)
    play_to_result(page)  # the last round's game: the tournament is over

    page.goto(f"{server}/#/event/{event}")
    page.wait_for_selector("[data-role=swiss-final]", timeout=WAIT_MS)  # the final table
    assert "比赛已结束" in page.inner_text("[data-role=event-status]")
    assert page.locator("[data-action=play-event], [data-role=event-link]").count() == 0
    assert page.locator("[data-role=swiss-round]").count() == 2
    shot(page, "swiss-final", full=True)

    # the page in English too
    page.click("[data-action=lang]")
    page.wait_for_function(
        "() => document.querySelector('[data-role=swiss-final]')?.innerText === 'Final standings'",
    )
    shot(page, "swiss-en", full=True)
    assert not errors, errors
    page.context.close()


def test_an_event_table_is_known_by_its_creator(browser: Any, static_url: str) -> None:
    """A closed tab forgets what play_event said; the table's state still names its event (its
    ``event``, or its creator event:ID), so 下一副 and 成绩榜 stand; any other table has none."""
    page = browser.new_context().new_page()
    page.goto(static_url + "/index.html")
    got = page.evaluate(
        """async () => {
          const play = await import('/js/eventplay.js');
          const list = await import('/js/eventlist.js');
          const made = await import('/js/eventnew.js');
          const events = [
            { id: 'a', club: 'c1' },
            { id: 'b', club: null, daily_date: '2026-12-05' },
            { id: 'c', club: null },
          ];
          return {
            said: play.eventOfTable({ event: 'e8', creator: 'event:e8', status: 'finished' }, 'tW'),
            event: play.eventOfTable({ creator: 'event:e9', status: 'finished' }, 'tX'),
            other: play.eventOfTable({ creator: 'ann', status: 'finished' }, 'tY'),
            club: list.listedHere(events, 'c1').map((e) => e.id),
            lobby: list.listedHere(events).map((e) => e.id),
            swiss: made.eventBody({ kind: 'swiss', name: ' 周末 ', club: '', bot_level: 'expert', rounds: '2',
              games: '1', place_points: ['3', '2', '1', '0'], start: 'owner', boards: '8', starts_at: '',
              ends_at: '' }),
            dup: made.eventBody({ kind: 'duplicate', name: 'x', club: 'c1', bot_level: '', boards: '4',
              start: 'now', rounds: '3', games: '1', place_points: [], starts_at: '', ends_at: '' }),
          };
        }"""
    )
    assert (got["said"], got["event"], got["other"]) == ("e8", "e9", None)
    assert got["club"] == ["a"] and got["lobby"] == ["a", "c"]
    assert got["swiss"] == {
        "kind": "swiss",
        "name": "周末",
        "bot_level": "expert",
        "rounds": 2,
        "games": 1,
        "place_points": [3, 2, 1, 0],
    }
    assert got["dup"] == {"kind": "duplicate", "name": "x", "club": "c1", "boards": 4}
    page.context.close()
