"""What the browser tests do on the page, by clicks and typing only, and what they read off the DOM.

The tests wait on what they need to see (a selector, a function of the DOM), never a fixed time, with
:data:`WAIT_MS` as the deadline where Playwright's default 30 s could be short on a busy machine.
"""

from __future__ import annotations

from typing import Any

WAIT_MS = 120_000
"""Deadline of the waits for the game to move on (bots, the server, the page all share 2 busy cores)."""

MY_TURN = "document.querySelector('[data-action=hint]:enabled, [data-action=pass]:enabled') !== null"
RESULT_SHOWN = "document.querySelector('[data-role=result]') !== null"
MY_TURN_OR_OVER = f"{RESULT_SHOWN} || {MY_TURN}"

CODES_JS = "es => es.map((e) => e.dataset.card)"
SEQ_ABOVE = "(n) => Number(document.querySelector('.table-screen').dataset.seq || 0) > n"

STATE_JS = """() => {
  const root = document.querySelector('.table-screen');
  const q = (sel) => [...document.querySelectorAll(sel)];
  return {
    seq: root ? root.dataset.seq : null,
    hand: q('.hand [data-card]').map((e) => e.dataset.card),
    counts: Object.fromEntries(q('.seat[data-seat]').map((e) =>
      [e.dataset.seat, (e.querySelector('[data-role=count]') || {}).textContent || null])),
    marks: q('[data-mark]').map((e) => e.closest('[data-seat]').dataset.seat + ':' + e.dataset.mark).sort(),
    places: q('[data-place]').map((e) => e.closest('[data-seat]').dataset.seat + ':' + e.dataset.place)
      .sort(),
    trick: q('.play-slot').filter((e) => e.style.opacity === '1').map((e) => e.dataset.seat + ':' +
      ([...e.querySelectorAll('[data-card]')].map((c) => c.dataset.card).join(',') ||
       (e.querySelector('.pass-chip') ? 'pass' : ''))).sort(),
    toMove: (document.querySelector('.seat.to-move, .me-bar.to-move') || {dataset: {}}).dataset.seat ?? null,
  };
}"""

CARDS_JS = """() => ({
  over: (document.querySelector('.table-screen') || {dataset: {}}).dataset.over === 'true',
  you: (document.querySelector('.table-screen') || {dataset: {}}).dataset.you,
  cards: [...document.querySelectorAll('[data-card]')].map((e) => e.dataset.card),
})"""


def assert_no_foreign_cards(record: dict[str, Any], checks: list[tuple[int, int, list[str]]]) -> None:
    """Each check (seat, actions so far, card codes in that seat's DOM) shows no card of another
    seat's hand that had not been played by then (R11, R12); ``record``: the game's record."""
    from niugui import Game

    game = Game.from_record(record)
    dealt = [{str(c) for c in game.dealt(seat)} for seat in range(4)]
    played: list[set[str]] = [set()]
    for action in record["actions"]:
        played.append(played[-1] | set(action.get("play", [])))
    for seat, count, cards in checks:
        foreign = set(cards) - dealt[seat] - played[count]
        assert not foreign, f"seat {seat} saw {sorted(foreign)} of other hands after {count} actions"


def take_nickname(page: Any, url: str, name: str) -> None:
    page.goto(url + "/")
    page.fill("input[name=nickname]", name)
    page.click("[data-action=session-guest]")
    page.wait_for_selector("[data-role=hello]")
    # The lobby shows before its WebSocket has authenticated; a request sent before then is refused
    # ("offline"), so wait for the connection (the banner is hidden while online).
    page.wait_for_selector("#conn-banner[data-status=online]", state="attached", timeout=WAIT_MS)


def switch_lang(page: Any, hello: str) -> None:
    """Tap 中文/English in the lobby and wait until it is drawn again in the other language (its
    greeting starts with ``hello``): the lobby module is imported again, so the new screen comes a
    moment after the tap, and a test that read or typed at once would meet the old one."""
    page.click("[data-action=lang]")
    page.wait_for_function(
        "(hello) => (document.querySelector('[data-role=hello]') || {}).innerText?.startsWith(hello)",
        arg=hello,
        timeout=WAIT_MS,
    )


def create_table(page: Any, turn_seconds: int, private: bool = False) -> None:
    form = "form[data-role=create-table]"
    page.fill(f"{form} input[name=turn_seconds]", str(turn_seconds))
    if private:
        page.check(f"{form} input[name=private]")
    page.click("button[data-action=create-table]")
    page.wait_for_selector(f".table-screen[data-status], {form} .error-text:not(:empty)", timeout=WAIT_MS)
    if not page.locator(".table-screen").count():
        raise AssertionError(f"creating the table was refused: {page.inner_text(f'{form} .error-text')}")


def my_turn(page: Any) -> bool:
    return bool(page.evaluate(MY_TURN))


def wait_my_turn_or_result(page: Any) -> None:
    """Wait until this page may act, or shows the game's result."""
    page.wait_for_function(MY_TURN_OR_OVER, timeout=WAIT_MS)


def settle(page: Any) -> None:
    """Wait until the page has laid out and painted what it has (two animation frames), e.g. before
    a screenshot after the viewport changed."""
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def seq(page: Any) -> int:
    value = page.evaluate("(document.querySelector('.table-screen') || {dataset: {}}).dataset.seq || '0'")
    return int(value or 0)


def take_turn(page: Any) -> bool:
    """On this page's turn: the hint's first suggestion and Play, or Pass when nothing is legal.
    Waits until the server has answered with a new event. Returns False when it was not its turn."""
    before = seq(page)
    if page.locator("[data-action=hint]:enabled").count():
        page.click("[data-action=hint]")
        page.wait_for_selector("[data-action=play]:enabled")
        page.click("[data-action=play]")
    elif page.locator("[data-action=pass]:enabled").count():
        page.click("[data-action=pass]")
    else:
        return False
    page.wait_for_function(SEQ_ABOVE, arg=before, timeout=WAIT_MS)
    return True


def click_card(page: Any, code: str) -> None:
    """Tap a card of the hand where it shows: its top-left corner (hand cards overlap)."""
    page.click(f".hand [data-card='{code}']", position={"x": 6, "y": 14})


def swipe(page: Any, first: int, last: int) -> list[str]:
    """Slide the pointer across hand cards ``first``..``last`` (their visible corners); returns the
    selected cards afterwards."""
    cards = page.locator(".hand .card")
    start, end = cards.nth(first).bounding_box(), cards.nth(last).bounding_box()
    page.mouse.move(start["x"] + 5, start["y"] + 20)
    page.mouse.down()
    page.mouse.move(end["x"] + 5, end["y"] + 20, steps=10)
    page.mouse.up()
    selected: list[str] = page.locator(".hand .card.selected").evaluate_all(CODES_JS)
    return selected


def take_turn_by_cards(page: Any) -> bool:
    """Like :func:`take_turn`, but the cards are chosen by tapping them: the hint shows a legal play,
    the cards are tapped off (Play turns disabled) and on again (Play turns enabled), then Play."""
    if not page.locator("[data-action=hint]:enabled").count():
        return take_turn(page)
    before = seq(page)
    page.click("[data-action=hint]")
    chosen = page.locator(".hand .card.selected").evaluate_all("es => es.map((e) => e.dataset.card)")
    assert chosen
    for code in chosen:
        click_card(page, code)
    assert page.locator("[data-action=play]").is_disabled()
    for code in chosen:
        click_card(page, code)
    assert page.locator("[data-action=play]").is_enabled()
    page.click("[data-action=play]")
    page.wait_for_function(SEQ_ABOVE, arg=before, timeout=WAIT_MS)
    return True


def result_shown(page: Any) -> bool:
    return bool(page.locator("[data-role=result]").count())


def play_until_result(page: Any) -> int:
    """Play this page's turns by tapping cards (bots play the others) until the result panel shows."""
    turns = 0
    while True:
        wait_my_turn_or_result(page)
        if result_shown(page):
            return turns
        assert take_turn_by_cards(page), "the page showed its turn, then neither Hint nor Pass was enabled"
        turns += 1


def play_to_the_end(pages: list[Any]) -> None:
    """Each page plays its own turns (bots play the rest) until every page shows the result. With
    one page it waits for its turn or the result; with several it looks at each in turn (a page's
    wait would hold up the other's turn), as test_four_players.py does."""
    while not all(page.evaluate(RESULT_SHOWN) for page in pages):
        acted = False
        for page in pages:
            if not page.evaluate(RESULT_SHOWN) and my_turn(page):
                take_turn(page)
                acted = True
        if acted:
            continue
        if len(pages) == 1:
            pages[0].wait_for_function(MY_TURN_OR_OVER, timeout=WAIT_MS)
        else:
            pages[0].wait_for_timeout(30)  # another page's turn or a bot's is being answered: look again


def table_state(page: Any) -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate(STATE_JS)
    return state
