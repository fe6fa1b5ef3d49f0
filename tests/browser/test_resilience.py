"""(c) A page reloaded mid-game, and a page whose connection is cut (the browser goes offline; the
socket is closed under it), come back to the same seat in the same state as the server's; while
offline the page says so and retries.

While a page is away its seat is in 托管 and the game may move on (the server's rule), so "the same
state" is checked against an observer that stays connected the whole time: a spectator page in
another browser context, compared at the same event seq.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .conftest import PHONE, run_server
from .pages import MY_TURN, WAIT_MS, create_table, table_state, take_nickname, take_turn

STABLE = (
    "document.querySelector('#conn-banner')?.dataset.status === 'online' && "
    f"document.querySelector('.table-screen')?.dataset.synced === 'true' && {MY_TURN}"
)
STABLE_OR_OVER = f"({STABLE}) || document.querySelector('.table-screen')?.dataset.over === 'true'"
BANNER_LEFT_ONLINE = """() => new Promise((done) => {
  const banner = document.querySelector('#conn-banner');
  new MutationObserver((changes, observer) => {
    if (banner.dataset.status !== 'online') { observer.disconnect(); done(banner.dataset.status); }
  }).observe(banner, {attributes: true, attributeFilter: ['data-status']});
  window.niugui.conn.ws.close();
})"""
"""Close the page's socket under it; resolves with the banner's first status other than online (a
MutationObserver sees every change, however brief, where polling could miss a quick reconnect)."""


def wait_my_turn(page: Any) -> dict[str, Any] | None:
    """Wait until the page is online and it is this seat's turn (bots wait for it), then read the
    table; None if the game is over instead."""
    page.wait_for_function(STABLE_OR_OVER, timeout=WAIT_MS)
    if page.get_attribute(".table-screen", "data-over") == "true":
        return None
    return table_state(page)


def same_as_observer(page: Any, observer: Any, seat: int) -> dict[str, Any] | None:
    """The player's page and the spectator's page show the same public state at the same seq, on the
    player's turn (when nothing moves: the bots wait for the player); None if the game is over."""
    for _ in range(50):
        mine = wait_my_turn(page)
        if mine is None:
            return None
        observer.wait_for_function(
            "(n) => Number(document.querySelector('.table-screen').dataset.seq) >= n",
            arg=int(mine["seq"]),
            timeout=WAIT_MS,
        )
        theirs = table_state(observer)
        if theirs["seq"] == mine["seq"] == table_state(page)["seq"]:
            break
        page.wait_for_timeout(100)
    else:
        raise AssertionError("the player's page and the observer never agreed on the last event")
    for key in ("marks", "places", "trick", "toMove"):
        assert mine[key] == theirs[key], key
    assert mine["toMove"] == str(seat)
    shared = set(mine["counts"]) & set(theirs["counts"])
    assert len(shared) >= 2
    assert all(mine["counts"][s] == theirs["counts"][s] for s in shared)
    if str(seat) in theirs["counts"]:
        assert theirs["counts"][str(seat)] == str(len(mine["hand"]))
    return mine


def game_id(page: Any) -> str | None:
    value: str | None = page.get_attribute(".table-screen", "data-game-id")
    return value


def away_and_back(page: Any, observer: Any, seat: int, away: Callable[[], None]) -> dict[str, Any]:
    """On this page's turn, go ``away()`` and come back: the page shows what the observer shows, its
    hand only smaller. While the page is away 托管 plays its seat, so the game may end meanwhile (it
    lasts only a few rounds in about one deal in a hundred): then the next game is started and
    the whole round trip is made again there."""
    for _ in range(3):
        before = same_as_observer(page, observer, seat)
        if before is None:  # over: the next game (the previous 上游 draws first)
            page.click("[data-action=next-game]")
            page.wait_for_selector(".table-screen[data-status=playing] .hand [data-card]", timeout=WAIT_MS)
            continue
        game = game_id(page)
        away()
        after = same_as_observer(page, observer, seat)
        if after is None or game_id(page) != game:
            continue
        assert set(after["hand"]) <= set(before["hand"])
        assert int(after["seq"]) >= int(before["seq"])
        return after
    raise AssertionError("three games in a row ended while the page was away")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose bots take a moment (0.25 s): the page's seat (in 托管 while it is away) and the
    bots play about a round while the page is away, rather than the rest of the game."""
    with run_server(tmp_path_factory.mktemp("niugui-slow"), bot_delay=0.25) as url:
        yield url


def test_reload_and_dropped_connection_come_back_to_the_same_state(browser: Any, server: str) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    take_nickname(page, server, "断线王")
    create_table(page, turn_seconds=120)
    table_id = page.get_attribute(".table-screen", "data-table")
    page.click("[data-action=fill-bots]")
    page.wait_for_selector(".hand [data-card]")
    seat = int(page.get_attribute(".table-screen", "data-you") or -1)
    observer_context = browser.new_context(viewport=PHONE)
    observer = observer_context.new_page()
    take_nickname(observer, server, "观众")
    observer.goto(f"{server}/#/table/{table_id}")
    observer.wait_for_selector(".table-screen[data-status=playing]")
    for _ in range(2):  # cards on the table (no game ends within its first few rounds)
        assert wait_my_turn(page) is not None
        take_turn(page)
    url = page.url

    # 1. Reload: the session token in localStorage brings the page back to its seat.
    away_and_back(page, observer, seat, page.reload)
    assert page.url == url
    assert page.get_attribute(".table-screen", "data-you") == str(seat)

    # 2. The network drops: the page says it is offline, retries, and comes back.
    def offline() -> None:
        context.set_offline(True)
        page.wait_for_selector("#conn-banner[data-status=offline]")
        assert page.locator("#conn-banner").is_visible()
        # Everyone at the table sees the seat go offline (and into 托管).
        observer.wait_for_selector(f"[data-seat='{seat}'] [data-chip=offline]")
        observer.wait_for_selector(f"[data-seat='{seat}'] [data-chip=autoplay]")
        page.wait_for_function("window.niugui.conn.attempt >= 2", timeout=WAIT_MS)  # a retry failed
        assert page.get_attribute("#conn-banner", "data-status") in ("offline", "reconnecting")
        assert page.locator("[data-action=play]:enabled, [data-action=pass]:enabled").count() == 0
        context.set_offline(False)

    away_and_back(page, observer, seat, offline)
    observer.wait_for_selector(f"[data-seat='{seat}'] [data-chip=offline]", state="detached")

    # 3. The socket is closed under the page: it reconnects and asks for what it missed (last seq).
    def socket_closed() -> None:
        assert page.evaluate(BANNER_LEFT_ONLINE) in ("offline", "reconnecting", "connecting")

    away_and_back(page, observer, seat, socket_closed)

    # And the game goes on from there.
    assert take_turn(page)
    assert not errors, errors
    context.close()
    observer_context.close()
