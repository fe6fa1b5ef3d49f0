"""The replay viewer steps through the server's replay of a record (POST /api/replay), at phone
(360×740) and desktop (1280×800) sizes: after every step the page shows exactly the engine's public
view (counts, trick, turn, marks, places) and, for a finished game, every hand; for a game in progress
no card that was not played (R11, R12); a bad record gets a reason in the page's language."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from niugui import Game

from .conftest import DESKTOP, screenshot

PHONE_TALL = {"width": 360, "height": 740}

DOM_JS = """() => {
  const q = (sel, root = document) => [...root.querySelectorAll(sel)];
  const codes = (root) => q('[data-card]', root).map((e) => e.dataset.card).sort();
  const seats = {};
  for (const box of q('.seat[data-seat]')) {
    seats[box.dataset.seat] = {
      count: Number(box.querySelector('[data-role=count]').textContent),
      open: codes(box.querySelector('.open-hand') || document.createDocumentFragment()),
    };
  }
  const bar = document.querySelector('.me-bar');
  return {
    step: Number(document.querySelector('.table-screen').dataset.step),
    label: document.querySelector('[data-role=step]').textContent,
    seats,
    bottom: Number(bar.dataset.seat),
    bottomHand: codes(document.querySelector('.hand')),
    trick: q('.play-slot').filter((e) => e.style.opacity === '1' && e.children.length).map((e) =>
      e.dataset.seat + ':' + (codes(e).join(',') || 'pass')).sort(),
    toMove: (document.querySelector('.seat.to-move, .me-bar.to-move') || {dataset: {}}).dataset.seat ?? null,
    marks: q('[data-mark]').map((e) => e.closest('[data-seat]').dataset.seat + ':' + e.dataset.mark).sort(),
    places: q('[data-place]').filter((e) => !e.closest('[data-role=result]'))
      .map((e) => e.closest('[data-seat]').dataset.seat + ':' + e.dataset.place).sort(),
    allCards: q('[data-card]').map((e) => e.dataset.card),
    result: (document.querySelector('[data-role=result]') || {dataset: {}}).dataset.outcome ?? null,
    lastAction: document.querySelector('[data-role=last-action]').textContent,
    wide: document.documentElement.scrollWidth,
  };
}"""


def random_record(seed: int, stop: int | None = None) -> dict[str, Any]:
    rng = random.Random(seed)
    game = Game.deal(seed=seed, first_drawer=seed % 4)
    while not game.over and (stop is None or len(game.actions()) < stop):
        plays = game.legal_plays()
        if game.can_pass() and (not plays or rng.random() < 0.35):
            game.pass_turn()
        else:
            game.play(rng.choice(plays))
    record = game.to_record()
    salt = "5a" * 32  # the fairness proof, as the server writes it in a record's meta
    commitment = hashlib.sha256(f"{salt}:{','.join(record['deck'])}".encode()).hexdigest()
    record["meta"] = {
        "players": [{"nickname": "小明"}, {"nickname": "Bot", "bot": "expert"}, None, "阿丽"],
        "salt": salt, "commitment": commitment, "commitment_scheme": "sha256(salt:deck)",
    }
    return record


def expected_at(record: dict[str, Any], step: int) -> tuple[dict[str, Any], Game]:
    game = Game.from_record({**record, "actions": record["actions"][:step], "result": None})
    return game.view(None), game


def check_step(page: Any, record: dict[str, Any], step: int, finished: bool) -> dict[str, Any]:
    page.wait_for_function("(i) => document.querySelector('.table-screen').dataset.step === String(i)",
                           arg=step)
    dom: dict[str, Any] = page.evaluate(DOM_JS)
    view, game = expected_at(record, step)
    where = f"step {step}"
    assert dom["label"].replace(" ", "") == f"第{step}/{len(record['actions'])}步", where
    for seat, shown in dom["seats"].items():
        assert shown["count"] == view["counts"][int(seat)], where
        assert shown["open"] == (sorted(str(c) for c in game.hand(int(seat))) if finished else []), where
    assert dom["bottomHand"] == (sorted(str(c) for c in game.hand(dom["bottom"])) if finished else []), where
    last = {e["seat"]: e for e in view["trick"]}  # each seat's slot shows its latest play or pass
    trick = sorted(f"{s}:{','.join(sorted(e['play'])) if 'play' in e else 'pass'}" for s, e in last.items())
    assert dom["trick"] == trick, where
    to_move = view["to_move"]
    assert dom["toMove"] == (None if to_move is None or view["over"] else str(to_move)), where
    assert dom["marks"] == sorted(f"{s}:{m}" for s in range(4) for m in view["marks"][s]), where
    assert set(dom["places"]) >= {f"{s}:{p}" for p, s in enumerate(view["finish"])}, where
    return dom


@pytest.fixture
def viewer(browser: Any, server: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    context = browser.new_context(viewport=request.param)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server}/#/replay")
    page.wait_for_selector("[data-role=record-text]")
    yield page
    assert not errors, errors
    context.close()


def open_record(page: Any, text: str) -> None:
    page.fill("[data-role=record-text]", text)
    page.click("[data-action=show-record]")


SIZES = [pytest.param(PHONE_TALL, id="phone-360x740"), pytest.param(DESKTOP, id="desktop-1280x800")]


@pytest.mark.parametrize("viewer", SIZES, indirect=True)
def test_the_viewer_steps_through_a_finished_game(viewer: Any) -> None:
    page = viewer
    size = page.viewport_size
    record = random_record(8)
    open_record(page, json.dumps(record, ensure_ascii=False))
    page.wait_for_selector("[data-role=step]")
    n = len(record["actions"])
    assert n > 20
    dom = check_step(page, record, 0, True)
    names = ["小明", "机器人2", "座位 3", "阿丽"]  # from the meta; a bot and a seat without a name in zh
    assert dom["lastAction"] == f"先抓牌：{names[record['first_drawer']]}"
    for step in range(1, n + 1):  # forwards, by button and by keyboard
        if step % 2:
            page.click("[data-action=next]")
        else:
            page.keyboard.press("ArrowRight")
        dom = check_step(page, record, step, True)
        assert dom["wide"] <= size["width"], f"step {step}: the page sticks out sideways"
        action = record["actions"][step - 1]
        assert dom["lastAction"].startswith(f"{names[action['seat']]}: "), (step, dom["lastAction"])
        if step == n // 2:
            screenshot(page, f"replay-{size['width']}x{size['height']}")
    assert dom["result"] == record["result"]["outcome"]
    page.click("[data-role=result] [data-action=verify]")  # the proof checks out in the page
    page.wait_for_selector("[data-role=verdict][data-ok]")
    assert page.get_attribute("[data-role=verdict]", "data-ok") == "true"
    screenshot(page, f"replay-result-{size['width']}x{size['height']}")
    page.click("[data-action=close-result]")
    for step in (n - 1, n - 2):  # backwards
        page.click("[data-action=prev]")
        check_step(page, record, step, True)
    slide = "(r, v) => { r.value = v; r.dispatchEvent(new Event('input')); }"
    page.eval_on_selector("[data-role=step-range]", slide, str(n // 3))
    check_step(page, record, n // 3, True)
    page.click("[data-action=first]")
    check_step(page, record, 0, True)
    other = page.locator(".seat[data-seat]").first.get_attribute("data-seat")
    page.click(f".seat[data-seat='{other}']")  # that seat to the bottom
    assert check_step(page, record, 0, True)["bottom"] == int(other or -1)
    page.click("[data-action=last]")
    assert check_step(page, record, n, True)["result"] == record["result"]["outcome"]


@pytest.mark.parametrize("viewer", SIZES, indirect=True)
def test_a_game_in_progress_shows_only_public_cards(viewer: Any) -> None:
    page = viewer
    record = random_record(9, stop=25)
    open_record(page, json.dumps(record))
    page.wait_for_selector("[data-role=hands-hidden]")
    played = {c for a in record["actions"] if "play" in a for c in a["play"]}
    page.click("[data-action=last]")
    for step in range(len(record["actions"]), -1, -1):
        dom = check_step(page, record, step, False)
        assert set(dom["allCards"]) <= played, f"step {step}: a hidden card is shown"
        page.keyboard.press("ArrowLeft")
    screenshot(page, f"replay-in-progress-{page.viewport_size['width']}")


@pytest.mark.parametrize("viewer", SIZES[:1], indirect=True)
def test_bad_records_get_a_reason_in_the_pages_language(viewer: Any, server: str) -> None:
    page = viewer
    record = random_record(10, stop=6)

    def error_after(text: str) -> tuple[str, str]:
        open_record(page, text)
        page.wait_for_selector("[data-role=replay-error][data-code]")
        box = page.locator("[data-role=replay-error]")
        result = (box.get_attribute("data-code") or "", box.inner_text())
        page.evaluate("document.querySelector('[data-role=replay-error]').removeAttribute('data-code')")
        return result

    assert error_after("{这不是记录") == ("bad_json", "这不是 JSON 格式的记录。")
    assert error_after(json.dumps({**record, "first_drawer": 7})) == (
        "bad_record", "这不是有效的牌局记录（出错的字段：first_drawer）。")
    wrong = dict(record["actions"][3], seat=(record["actions"][3]["seat"] + 1) % 4)
    code, text = error_after(json.dumps({**record, "actions": [*record["actions"][:3], wrong]}))
    assert code == "illegal_action" and "R27" not in text  # rule ids only on the rules page (issue 10)
    assert text.startswith("记录的第 4 步不合规则：不是这个座位的回合")
    assert page.input_value("[data-role=record-text]").startswith("{")  # the text is kept to fix it
    code, text = error_after(json.dumps({**record, "meta": {"pad": "x" * 70_000}}))
    assert code == "too_large" and "64 KB" in text
    page.evaluate("localStorage.setItem('niugui.lang', 'en')")
    page.reload()
    page.wait_for_selector("[data-role=record-text]")
    code, text = error_after(json.dumps({**record, "actions": [*record["actions"][:3], wrong]}))
    assert text.startswith("Step 4 of the record breaks a rule: not that seat's turn"), text
    page.goto(f"{server}/#/replay/999999")
    page.wait_for_selector("[data-role=replay-error][data-code]")
    assert page.inner_text("[data-role=replay-error]") == "There is no such game."
