"""Issue 10: a table that feels alive — sound, animation, quick chat, the 记牌器, play assists and
access by screen reader and keyboard — on a 360×740 touch phone and a 1280×800 desktop, in Chinese and
English. Every wait is on the page's own state (a selector, the table's seq, a test hook), never a
fixed time. The hooks count what the page starts (``window.niuguiSounds``, ``window.niuguiMotion``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, get_args

import pytest

from niugui.server.protocol import PhraseId

from .conftest import DESKTOP, screenshot
from .pages import (
    CODES_JS,
    MY_TURN,
    RESULT_SHOWN,
    SEQ_ABOVE,
    WAIT_MS,
    create_table,
    seq,
    settle,
    take_nickname,
    take_turn,
    wait_my_turn_or_result,
)

PHONE_TOUCH = {"width": 360, "height": 740}
RUNNING_JS = "() => document.getAnimations().some((a) => a.playState === 'running')"
LOOKS = [
    pytest.param(PHONE_TOUCH, "zh", id="phone-zh"),
    pytest.param(DESKTOP, "en", id="desktop-en"),
]
SUITS_ZH = {"S": "黑桃", "H": "红桃", "C": "梅花", "D": "方块"}
SUITS_EN = {"S": "spades", "H": "hearts", "C": "clubs", "D": "diamonds"}
RANK_TEXT = {"T": "10"}


def label_of(code: str, lang: str) -> str:
    """What a screen reader should say for a card (independent of the page's code)."""
    if code in ("BJ", "RJ"):
        jokers = {"zh": {"BJ": "小王", "RJ": "大王"}, "en": {"BJ": "small joker", "RJ": "big joker"}}
        return jokers[lang][code]
    rank = RANK_TEXT.get(code[1], code[1])
    return SUITS_ZH[code[0]] + rank if lang == "zh" else f"{rank} of {SUITS_EN[code[0]]}"


def new_context(browser: Any, size: dict[str, int], lang: str, **options: Any) -> Any:
    phone = size["width"] < 700
    context = browser.new_context(viewport=size, has_touch=phone, is_mobile=phone, **options)
    context.add_init_script(f"localStorage.setItem('niugui.lang', {json.dumps(lang)})")
    return context


def open_table(page: Any, server: str, name: str, turn_seconds: int = 120, bots: bool = True) -> None:
    take_nickname(page, server, name)
    create_table(page, turn_seconds=turn_seconds)
    if bots:
        page.click("[data-action=fill-bots]")
        page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)


def shoot(page: Any, name: str, size: dict[str, int], lang: str) -> None:
    settle(page)
    screenshot(page, f"table-{name}-{size['width']}x{size['height']}-{lang}")


def errors_of(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def hook(page: Any, name: str) -> dict[str, Any]:
    value: dict[str, Any] = page.evaluate(f"() => window.{name} || null")
    return value


def wait_seq_above(page: Any, n: int) -> None:
    page.wait_for_function(SEQ_ABOVE, arg=n, timeout=WAIT_MS)


TAKE_BACK = """() => window.niugui.conn.request('autoplay',
  {table: document.querySelector('.table-screen').dataset.table, on: false})"""
TURN_TICKED = "['turn', 'tick'].every((n) => window.niuguiSounds.names.includes(n))"


def hear_a_turn_count_down(page: Any) -> None:
    """Wait until this seat's turn has sounded and ticked through its last seconds. If the game ends
    first (this seat's second timeout put it in 托管, which plays at once), take the seat back and
    start the next game, as a player would."""
    while True:
        page.wait_for_function(f"() => ({TURN_TICKED}) || {RESULT_SHOWN}", timeout=WAIT_MS)
        if page.evaluate(f"() => {TURN_TICKED}"):
            return
        page.evaluate(TAKE_BACK)
        page.click("[data-action=next-game]")
        page.wait_for_function(f"() => !({RESULT_SHOWN})", timeout=WAIT_MS)


@pytest.fixture
def contexts(browser: Any) -> Iterator[list[Any]]:
    made: list[Any] = []
    yield made
    for context in made:
        context.close()


# ---- 1. sound --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "lang"), LOOKS)
def test_sounds_start_only_after_a_tap_mark_the_game_and_stay_muted(
    browser: Any, server: str, contexts: list[Any], size: dict[str, int], lang: str
) -> None:
    contexts.append(context := new_context(browser, size, lang))
    page = context.new_page()
    errors = errors_of(page)
    take_nickname(page, server, "声音")
    page.evaluate("() => localStorage.removeItem('niugui.mute')")
    create_table(page, turn_seconds=6)  # short turns: the last five seconds come on every turn
    page.click("[data-action=fill-bots]")
    page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
    page.reload()  # a fresh page that nobody has touched yet: the game goes on, silently
    page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
    wait_seq_above(page, seq(page) + 2)
    assert hook(page, "niuguiSounds")["started"] == 0

    # The first tap, at a moment when nothing moves until this seat acts or its time runs out (its
    # turn), or until it gets ready (a result). On a slow machine its two timeouts may have come
    # before the page got here: 托管 would then play the game out under the tap, so it is taken back
    # first (by the page's own connection: not a tap).
    page.evaluate(TAKE_BACK)
    wait_my_turn_or_result(page)
    first = ".result h2" if page.evaluate(f"() => {RESULT_SHOWN}") else ".felt"
    page.locator(first).tap() if size["width"] < 700 else page.click(first)
    # nobody acts for this page: its turns time out, ticking through their last five seconds
    hear_a_turn_count_down(page)
    page.wait_for_function(
        "() => window.niuguiSounds.names.some((n) => ['play', 'five', 'spade', 'out'].includes(n))"
        " && window.niuguiSounds.names.includes('pass')",
        timeout=WAIT_MS,
    )
    shoot(page, "sound", size, lang)
    page.wait_for_selector(".table-screen[data-over=true]", timeout=WAIT_MS)  # 托管 plays it out
    assert "out" in hook(page, "niuguiSounds")["names"]  # someone went out
    you = int(page.get_attribute(".table-screen", "data-you") or -1)
    game_id = page.get_attribute(".table-screen", "data-game-id")
    record = page.evaluate(f"() => fetch('/api/games/{game_id}/record').then((r) => r.json())")
    score = record["result"]["scores"][you]
    if score:  # 免炒 (0) has no sound of its own
        wanted = "win" if score > 0 else "lose"
        page.wait_for_function("(n) => window.niuguiSounds.names.includes(n)", arg=wanted, timeout=WAIT_MS)

    # muted: remembered after a reload, and nothing starts through the whole next game
    page.click("[data-action=close-result]")
    page.click("[data-action=sound]")
    assert page.get_attribute("[data-action=sound]", "aria-pressed") == "false"
    page.reload()
    page.wait_for_selector("[data-action=sound][aria-pressed=false]", timeout=WAIT_MS)
    page.click("[data-action=next-game]")  # a tap: sound could start from here on
    page.wait_for_function(  # the whole next game (托管 plays this seat since the two timeouts)
        "(old) => { const r = document.querySelector('.table-screen');"
        " return r.dataset.gameId && r.dataset.gameId !== old && r.dataset.over === 'true'; }",
        arg=game_id,
        timeout=WAIT_MS,
    )
    assert hook(page, "niuguiSounds")["started"] == 0
    assert not errors, errors


# ---- 2. animation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "lang"), LOOKS)
def test_plays_fly_in_and_tricks_clear_but_not_under_reduced_motion(
    browser: Any, server: str, contexts: list[Any], size: dict[str, int], lang: str
) -> None:
    for motion in ("no-preference", "reduce"):
        contexts.append(context := new_context(browser, size, lang, reduced_motion=motion))
        page = context.new_page()
        errors = errors_of(page)
        open_table(page, server, f"动画{motion[:2]}")
        # play this seat's turns until a trick has cleared at least once
        shot = False
        for _ in range(60):
            wait_my_turn_or_result(page)
            cleared = page.locator(".play-slot[style*='0.45'] .card").count()  # the last trick, faded
            if cleared or page.locator("[data-role=result]").count():
                break
            take_turn(page)
            if motion != "reduce" and not shot and page.evaluate(RUNNING_JS):
                shot = True  # caught mid-flight
                shoot(page, "motion", size, lang)
        motion_hook = hook(page, "niuguiMotion")
        running = page.evaluate(RUNNING_JS)
        if motion == "reduce":
            assert motion_hook["started"] == 0, motion_hook
            assert not running
            assert page.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches")
        else:
            assert "fly" in motion_hook["kinds"] and "clear" in motion_hook["kinds"], motion_hook
            if not shot:
                shoot(page, "motion", size, lang)
        assert not errors, errors


# ---- 3. quick chat ---------------------------------------------------------------------------------


def chat_seen(page: Any, seat: int, phrase: str) -> str:
    return f"[data-role=chat-log] [data-seat='{seat}'][data-phrase='{phrase}']"


def test_quick_chat_reaches_three_browsers_and_a_spectator_and_is_rate_limited(
    browser: Any, server: str, contexts: list[Any]
) -> None:
    looks = [(PHONE_TOUCH, "zh"), (DESKTOP, "en"), (PHONE_TOUCH, "en"), (DESKTOP, "zh"), (PHONE_TOUCH, "zh")]
    pages = []
    for size, lang in looks:
        contexts.append(context := new_context(browser, size, lang))
        pages.append(context.new_page())
    errors = [errors_of(p) for p in pages]
    players, spectator = pages[:4], pages[4]
    for n, page in enumerate(pages):
        take_nickname(page, server, f"聊{n}")
    create_table(players[0], turn_seconds=300)
    table = players[0].get_attribute(".table-screen", "data-table")
    screen = f".table-screen[data-table='{table}']"
    for page in players[1:]:
        # Only a hash changes, so the lobby stays on the screen until the table's screen is drawn,
        # and the lobby has 入座 buttons of its own (for other tables): tap the table's one.
        page.goto(f"{server}/#/table/{table}")
        page.click(f"{screen} [data-action=sit]", timeout=WAIT_MS)
        page.wait_for_selector(f"{screen}[data-you]:not([data-you=''])", timeout=WAIT_MS)
    for page in players:
        page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
    spectator.goto(f"{server}/#/table/{table}")
    spectator.wait_for_selector(".seat[data-seat]", timeout=WAIT_MS)
    seats = [int(p.get_attribute(".table-screen", "data-you") or -1) for p in players]

    sender = players[1]
    sender.click("[data-action=chat]")
    sender.click("[data-action=chat-phrase][data-phrase=together]")
    for page in pages:
        page.wait_for_selector(chat_seen(page, seats[1], "together"), state="attached", timeout=WAIT_MS)
    spectator.wait_for_selector(f"[data-role=chat-bubble][data-seat='{seats[1]}']", timeout=WAIT_MS)
    text = players[0].inner_text(chat_seen(players[0], seats[1], "together"), timeout=WAIT_MS)
    assert "配合一下" in text  # players[0] reads Chinese
    assert "work together" in players[2].text_content(chat_seen(players[2], seats[1], "together"))
    assert spectator.locator("[data-action=chat-phrase]").count() == 0  # a spectator only reads
    for page, (size, lang) in zip(pages[:2], looks[:2], strict=True):
        shoot(page, "chat", size, lang)

    # five phrases at once: the server lets through what is left of the burst of 3 (one went on
    # "together", at most one more came back since) and refuses the rest; the page says so
    sender.evaluate(
        "() => { for (let i = 0; i < 5; i++) document.querySelector('[data-phrase=emote_flower]').click(); }"
    )
    sender.wait_for_selector(".msg-line.bad", timeout=WAIT_MS)
    assert "wait a moment" in sender.inner_text(".msg-line")  # sender's page is English

    # players[2] mutes players[3]'s seat: the others see its phrase, players[2] does not
    players[2].click("[data-action=chat]")
    players[2].click(f"[data-action=chat-mute][data-seat='{seats[3]}']")
    players[2].wait_for_selector(f"[data-action=chat-mute][data-seat='{seats[3]}'][aria-pressed=true]")
    players[3].click("[data-action=chat]")
    players[3].click("[data-action=chat-phrase][data-phrase=thanks]")
    players[0].wait_for_selector(chat_seen(players[0], seats[3], "thanks"), state="attached", timeout=WAIT_MS)
    flowers = players[0].locator(chat_seen(players[0], seats[1], "emote_flower")).count()  # all came before
    assert 2 <= flowers <= 3, flowers
    at = seq(players[0])
    wait_seq_above(players[2], at - 1)  # players[2] has had the chat event too
    assert players[2].locator(chat_seen(players[2], seats[3], "thanks")).count() == 0
    assert players[2].locator(f"[data-role=chat-bubble][data-seat='{seats[3]}']").count() == 0
    for page in pages:  # a chat shows no card: the log holds phrases only
        assert not page.locator("[data-role=chat-log] [data-card]").count()
    assert not any(errors), errors


# ---- 4. 记牌器 -------------------------------------------------------------------------------------


def snapshot_truth(server: str, token: str, table: str) -> dict[str, Any]:
    """The server's snapshot for this account's seat, over a WebSocket of its own."""
    from websockets.sync.client import connect

    port = server.rsplit(":", 1)[1]
    with connect(f"ws://127.0.0.1:{port}/ws") as ws:
        ws.send(json.dumps({"type": "auth", "id": "a", "token": token}))
        ws.send(json.dumps({"type": "watch", "id": "w", "table": table}))
        while True:
            message = json.loads(ws.recv(timeout=30))
            if message["type"] == "snapshot":
                return dict(message["view"])


def expected_unseen(view: dict[str, Any]) -> dict[str, int]:
    left = {"RJ": 1, "BJ": 1, **{r: 4 for r in "456789TJQKA23"}}
    played = [c for a in view["history"] if "play" in a for c in a["play"]]
    for code in played + view["hand"]:
        left[code if code in ("BJ", "RJ") else code[1]] -= 1
    return left


@pytest.mark.parametrize(("size", "lang"), LOOKS)
def test_the_counter_matches_the_cards_played_and_can_be_switched_off(
    browser: Any, server: str, contexts: list[Any], size: dict[str, int], lang: str
) -> None:
    contexts.append(context := new_context(browser, size, lang))
    page = context.new_page()
    errors = errors_of(page)
    open_table(page, server, "记牌")
    table = str(page.get_attribute(".table-screen", "data-table"))
    token = page.evaluate("() => localStorage.getItem('niugui.token')")
    page.click("[data-action=counter]")
    for turn in range(3):
        page.wait_for_function(MY_TURN, timeout=WAIT_MS)
        view = snapshot_truth(server, token, table)  # the game waits for this seat: nothing moves
        truth = expected_unseen(view)
        shown = {
            cell.get_attribute("data-rank"): int(cell.get_attribute("data-left") or -1)
            for cell in page.locator("[data-role=counter] [data-rank]").all()
        }
        assert shown == truth, (turn, shown, truth)
        assert sum(truth.values()) == 54 - len(view["hand"]) - sum(
            len(a.get("play", [])) for a in view["history"]
        )
        if turn == 1:
            shoot(page, "counter", size, lang)
        take_turn(page)
    assert not errors, errors

    # a table created with the counter off shows no counter
    page.goto(server + "/#/")
    page.wait_for_selector("form[data-role=create-table]")
    page.uncheck("form[data-role=create-table] input[name=counter]")
    create_table(page, turn_seconds=120)
    page.click("[data-action=fill-bots]")
    page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
    assert page.locator("[data-action=counter]").count() == 0
    assert page.locator("[data-action=chat]").count() == 1


# ---- 5. play assists -------------------------------------------------------------------------------


def hand_codes(page: Any) -> list[str]:
    codes: list[str] = page.locator(".hand [data-card]").evaluate_all(CODES_JS)
    return codes


def selected_codes(page: Any) -> list[str]:
    codes: list[str] = page.locator(".hand .card.selected").evaluate_all(CODES_JS)
    return sorted(codes)


@pytest.mark.parametrize(("size", "lang"), LOOKS)
def test_auto_pass_grouping_and_the_cycling_hint(
    browser: Any, server: str, contexts: list[Any], size: dict[str, int], lang: str
) -> None:
    contexts.append(context := new_context(browser, size, lang))
    page = context.new_page()
    errors = errors_of(page)
    open_table(page, server, "理牌")
    for _ in range(30):  # a turn with something to play (passing where nothing beats)
        page.wait_for_function(MY_TURN, timeout=WAIT_MS)
        if page.locator("[data-action=hint]:enabled").count():
            break
        take_turn(page)

    # the hint cycles through every legal play and comes back to the first
    plays = int(page.get_attribute("[data-action=hint]", "data-plays") or 0)
    assert plays >= 1
    seen = []
    for _ in range(min(plays, 40) + (1 if plays <= 40 else 0)):
        page.click("[data-action=hint]")
        seen.append(tuple(selected_codes(page)))
    if plays <= 40:
        assert len(set(seen[:-1])) == plays and seen[-1] == seen[0], seen
    else:
        assert len(set(seen)) == len(seen)

    # 理牌: the chosen cards move to the left, together; undone with a tap
    page.click("[data-action=hint]")  # clear by picking, then choose two cards by tapping
    page.keyboard.press("Escape")
    before = hand_codes(page)
    chosen = [before[-1], before[-3]]
    for code in chosen:
        page.click(f".hand [data-card='{code}']", position={"x": 6, "y": 14})
    page.click("[data-action=group]")
    after = hand_codes(page)
    assert sorted(after[:2]) == sorted(chosen) and sorted(after) == sorted(before)
    assert page.locator(".hand .card.grouped").count() == 2
    shoot(page, "group", size, lang)
    page.click("[data-action=ungroup]")
    assert hand_codes(page) == before

    # 自动不出: remembered on this device, and it passes when nothing beats the play
    page.click("[data-action=autopass]")
    assert page.evaluate("() => localStorage.getItem('niugui.autopass')") == "1"
    page.reload()
    page.wait_for_selector("[data-action=autopass][aria-pressed=true]", timeout=WAIT_MS)
    page.click("[data-action=autopass]")  # off, and remembered so
    assert page.evaluate("() => localStorage.getItem('niugui.autopass')") == "0"
    page.click("[data-action=autopass]")
    for _ in range(400):
        wait_my_turn_or_result(page)
        if page.locator("[data-auto-passed]").count():
            break
        if page.locator("[data-role=result]").count():
            page.click("[data-action=next-game]")
            page.wait_for_function(MY_TURN, timeout=WAIT_MS)
            continue
        # with auto-pass on, this seat's turn is never one where only passing is possible
        assert page.locator("[data-action=hint]:enabled").count(), "auto-pass did not pass"
        take_turn(page)
    assert int(page.get_attribute("[data-auto-passed]", "data-auto-passed") or 0) >= 1
    assert not errors, errors


# ---- 11. accessible --------------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "lang"), LOOKS)
def test_screen_reader_labels_keyboard_play_and_cues_beyond_colour(
    browser: Any, server: str, contexts: list[Any], size: dict[str, int], lang: str
) -> None:
    contexts.append(context := new_context(browser, size, lang))
    page = context.new_page()
    errors = errors_of(page)
    open_table(page, server, "键盘")
    for card in page.locator(".hand [data-card]").all():
        code = str(card.get_attribute("data-card"))
        assert card.get_attribute("aria-label") == label_of(code, lang)
        assert card.get_attribute("aria-pressed") == "false"
    for button in page.locator("button:visible").all():  # every button says what it is
        assert (button.get_attribute("aria-label") or button.inner_text()).strip()

    done = {"typed": 0, "hint": 0, "pass": 0}
    for _ in range(200):
        if all(done.values()):
            break
        wait_my_turn_or_result(page)
        if page.locator("[data-role=result]").count():  # no free lead came this game: the next one
            page.click("[data-action=next-game]")
            page.wait_for_selector("[data-role=result]", state="detached", timeout=WAIT_MS)
            continue
        before, hand, typed = seq(page), hand_codes(page), None
        assert page.locator(".me-bar .turn-marker").count() == 1  # whose turn: a mark, not colour alone
        page.locator("body").focus()
        if page.locator("[data-action=pass]:enabled").count() and not done["pass"]:
            page.keyboard.press("p")
            done["pass"] += 1
        elif not page.locator("[data-action=pass]:enabled").count() and not done["typed"]:
            weakest = hand[0]  # a free lead (R27): any single will do, and on the first lead ♦4 is it (R26)
            key = {"BJ": "x", "RJ": "y"}.get(weakest) or {"T": "0"}.get(weakest[1], weakest[1].lower())
            page.keyboard.press(key)
            assert selected_codes(page) == [weakest], (key, selected_codes(page))
            assert page.get_attribute(f".hand [data-card='{weakest}']", "aria-pressed") == "true"
            page.keyboard.press("Enter")
            done["typed"] += 1
            typed = weakest
        elif page.locator("[data-action=hint]:enabled").count():
            page.keyboard.press("h")
            assert selected_codes(page)
            page.keyboard.press("Enter")
            done["hint"] += 1
        else:  # nothing beats the play
            page.keyboard.press("p")
        wait_seq_above(page, before)
        if typed:
            assert typed not in hand_codes(page), "the typed card was played"
    assert all(done.values()), done
    assert re.fullmatch(r"\S.*", page.get_attribute(".seat[data-seat]", "aria-label") or "")
    shoot(page, "keyboard", size, lang)
    assert not errors, errors


def test_every_word_of_the_table_extras_exists_in_both_languages(browser: Any, static_url: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{static_url}/index.html#/replay")
    keys = page.evaluate("async () => (await import('/js/tablestrings.js')).TABLE_STRING_KEYS")
    assert set(keys["zh"]) == set(keys["en"]) and len(keys["zh"]) > 40
    chat = page.evaluate(
        "async () => { const c = await import('/js/chat.js'); return [...c.PHRASES, ...c.EMOTES]; }"
    )

    assert chat == list(get_args(PhraseId))  # the page offers exactly the protocol's phrases
    assert all(f"phrase_{p}" in keys["zh"] for p in chat)
    context.close()


COUNTER_AND_KEYS_JS = """async () => {
  const counter = await import('/js/counter.js');
  const keys = await import('/js/keys.js');
  const left = counter.unseen(['S3', 'D4', 'C4', 'BJ'], ['H4', 'ST', 'RJ']);
  const pick = (hand, sel, key) => [...keys.pickRank(hand, new Set(sel), keys.rankOfKey(key))].sort();
  return {
    left,
    played: counter.playedIn([{seat: 0, play: ['D4', 'C4']}, {seat: 1, pass: true}, {seat: 2, play: ['S4']}]),
    first4: pick(['D4', 'C4', 'HT', 'ST', 'BJ'], [], '4'),
    second4: pick(['D4', 'C4', 'HT', 'ST', 'BJ'], ['D4'], '4'),
    drop4: pick(['D4', 'C4', 'HT', 'ST', 'BJ'], ['D4', 'C4', 'HT'], '4'),
    ten: pick(['D4', 'C4', 'HT', 'ST', 'BJ'], [], '0'),
    joker: pick(['D4', 'C4', 'HT', 'ST', 'BJ'], [], 'x'),
    none: pick(['D4', 'C4'], [], 'k'),
  };
}"""


def test_counter_and_typed_ranks_in_the_page_modules(browser: Any, static_url: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{static_url}/index.html#/replay")
    got = page.evaluate(COUNTER_AND_KEYS_JS)
    # 54 cards (R1): 4 of each rank and one of each joker, less the public plays and the own hand
    assert got["left"] == {"RJ": 0, "BJ": 0, "3": 3, "2": 4, "A": 4, "K": 4, "Q": 4, "J": 4, "T": 3, "9": 4,
                           "8": 4, "7": 4, "6": 4, "5": 4, "4": 1}
    assert got["played"] == ["D4", "C4", "S4"]  # passes add nothing
    assert got["first4"] == ["D4"] and got["second4"] == ["C4", "D4"] and got["drop4"] == ["HT"]
    assert got["ten"] == ["HT"] and got["joker"] == ["BJ"] and got["none"] == []
    context.close()
