"""Issue 10, point 6: closing the tab mid-game keeps the seat (R35: no escape).

The page asks first (``beforeunload``, where the browser may ask); if the tab goes anyway, the server
turns 托管 on for the seat (the expert bot plays its turns, ``by: "autoplay"``), the seat is not
escaped within the grace period, and opening the page again the lobby shows 回到牌桌, which leads back
to the same seat. A spectator's page shows what the table's other seats see meanwhile.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .conftest import screenshot
from .pages import WAIT_MS, take_nickname
from .test_no_surprises import TOUCH, in_a_game

Frame = dict[str, Any]


class Frames:
    """Every WebSocket frame a page receives, parsed, and a wait for one that matches."""

    def __init__(self, page: Any) -> None:
        self.got: list[Frame] = []
        self.sockets: list[Any] = []

        def on_socket(ws: Any) -> None:
            self.sockets.append(ws)
            ws.on("framereceived", lambda payload: self.got.append(json.loads(payload)))

        page.on("websocket", on_socket)

    def wait(self, match: Callable[[Frame], bool], what: str, since: int = 0) -> int:
        """The index of the first frame received from ``since`` on that ``match``es, waiting for
        more frames until one does."""
        while True:
            found = next((n for n in range(since, len(self.got)) if match(self.got[n])), None)
            if found is not None:
                return found
            assert self.sockets, f"no WebSocket yet, waiting for {what}"
            self.sockets[-1].wait_for_event("framereceived", timeout=WAIT_MS)


def event_of(seat: int, *kinds: str, **fields: Any) -> Callable[[Frame], bool]:
    def match(frame: Frame) -> bool:
        event = frame.get("event") if frame.get("type") == "event" else None
        return (
            event is not None and event.get("seat") == seat and event["kind"] in kinds
            and all(event.get(k) == v for k, v in fields.items())
        )

    return match


def test_R35_closing_the_tab_mid_game_keeps_the_seat_in_autoplay_and_the_lobby_leads_back(
    browser: Any, server: str
) -> None:
    context, page, table = in_a_game(browser, server, "关页")
    me = int(str(page.get_attribute(".table-screen", "data-you")))

    watcher_context = browser.new_context(**TOUCH)
    watcher = watcher_context.new_page()
    seen = Frames(watcher)
    take_nickname(watcher, server, "旁观")
    watcher.evaluate("(id) => { location.hash = '#/table/' + id; }", table)
    watcher.wait_for_selector(f".table-screen[data-table='{table}'] .seat[data-seat]", timeout=WAIT_MS)

    asked: list[str] = []

    def on_dialog(dialog: Any) -> None:
        asked.append(dialog.type)
        dialog.accept()  # leave anyway

    page.on("dialog", on_dialog)
    page.close(run_before_unload=True)  # the tab's ✕: the page asks first (it had a tap)
    page.wait_for_event("close", timeout=WAIT_MS)
    assert asked == ["beforeunload"]

    # The seat goes offline and 托管 plays it; nobody escaped.
    closed = len(seen.got)
    away = seen.wait(event_of(me, "autoplay", on=True, reason="offline"), "托管 after the tab closed", closed)
    seen.wait(event_of(me, "presence", online=False), "the seat offline", closed)
    seen.wait(event_of(me, "play", "pass", by="autoplay"), "the bot playing the closed tab's seat", away)
    assert not any(event_of(me, "escape")(f) for f in seen.got)

    again = context.new_page()  # the same phone opens the page again (its session is kept)
    again.goto(server + "/")
    back_button = f"[data-action=back-to-table][data-table='{table}']"
    again.wait_for_selector(back_button, timeout=WAIT_MS)
    assert "回到牌桌" in again.inner_text(back_button)
    screenshot(again, "lobby-after-closing-the-tab-phone-360x740")
    again.click(back_button)  # the lobby redraws its list every few seconds: found again if so
    again.wait_for_function(
        "(me) => (document.querySelector('.table-screen') || {dataset: {}}).dataset.you === String(me)",
        arg=me, timeout=WAIT_MS,
    )
    back = seen.wait(event_of(me, "presence", online=True), "the seat online again", away)
    assert not any(event_of(me, "escape")(f) for f in seen.got)
    assert not any(event_of(me, "seat_left")(f) for f in seen.got)  # the seat was never given up
    assert back > away
    seats = again.evaluate("() => fetch('/api/me/seats', {headers: {Authorization: 'Bearer ' + "
                           "localStorage.getItem('niugui.token')}}).then((r) => r.json())")
    assert [s["table"] for s in seats["seats"]] == [table]
    context.close()
    watcher_context.close()
