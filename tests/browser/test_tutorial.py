"""Issue 28, point 5: 新手教学, the guided first game. The lobby offers it once; the rules card always
links to it. A phone (360×740) plays it to its end by following its lines — the ♦4 lead, following,
passing, the black cards and sides, five-card plays, 接风, going out and scoring — and it can be left
at any step. The deal is the one scripts/make_tutorial.py makes, every move legal by the engine."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from niugui import Game
from niugui.cli.i18n import LANGS

from .conftest import ROOT, screenshot
from .pages import WAIT_MS, create_table, settle, take_nickname

PHONE = {"width": 360, "height": 740}
TOPICS = {"tut_welcome", "tut_side", "tut_lead", "tut_follow", "tut_pass", "tut_black", "tut_five",
          "tut_out", "tut_jiefeng", "tut_score"}
NEXT_MOVE = """() => {
  const done = document.querySelector('[data-tutorial=done]');
  if (done && !done.closest('.overlay.hidden')) return 'done';
  if (document.querySelector('[data-action=tutorial-next]')) return 'next';
  if (document.querySelector('[data-action=hint]:enabled')) return 'play';
  if (document.querySelector('[data-action=pass]:enabled')) return 'pass';
  return '';
}"""

STEP_MOVED = "(s) => document.querySelector('.tutorial-screen').dataset.step !== s"


def test_the_guided_deal_is_current_legal_and_a_friendly_win() -> None:
    made = subprocess.run([sys.executable, "scripts/make_tutorial.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    script = json.loads((ROOT / "niugui" / "web" / "static" / "tutorial.json").read_text(encoding="utf-8"))
    game = Game.from_record(script["record"])  # every action legal (R26–R31), or this raises
    assert game.over and game.result is not None
    you = script["you"]
    assert game.result.finish[0] == you and game.result.scores[you] > 0
    assert "D4" in {c.code for c in game.dealt(you)}
    assert {line["key"] for line in script["lines"]} == TOPICS
    assert LANGS == ("zh", "en")


def test_a_phone_plays_the_guided_game_to_its_end(browser: Any, server: str) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    take_nickname(page, server, "新手")
    page.click("[data-action=start-tutorial]")  # offered in the lobby, once
    page.wait_for_selector("[data-role=tutorial-line] [data-key=tut_welcome]", timeout=WAIT_MS)
    settle(page)
    screenshot(page, "issue28-tutorial-start-phone")
    said: set[str] = set()
    shot = False
    while True:
        page.wait_for_function(NEXT_MOVE, timeout=WAIT_MS)
        move = page.evaluate(NEXT_MOVE)
        if move == "done":
            break
        if move == "next":
            key = page.get_attribute("[data-role=tutorial-line]", "data-key") or ""
            said.add(key)
            if key == "tut_five" and not shot:
                settle(page)
                screenshot(page, "issue28-tutorial-five-phone")
                shot = True
            page.click("[data-action=tutorial-next]")
        elif move == "play":
            step = page.get_attribute(".tutorial-screen", "data-step")
            page.click("[data-action=hint]")
            page.click("[data-action=play]")
            page.wait_for_function(STEP_MOVED, arg=step)
        else:
            step = page.get_attribute(".tutorial-screen", "data-step")
            page.click("[data-action=pass]")
            page.wait_for_function(STEP_MOVED, arg=step)
    assert said == TOPICS, TOPICS - said
    assert page.get_attribute("[data-role=you-result]", "data-verdict") == "won"
    settle(page)
    screenshot(page, "issue28-tutorial-end-phone")
    page.click("[data-action=leave-tutorial-end]")
    page.wait_for_selector("[data-role=hello]", timeout=WAIT_MS)
    assert page.locator("[data-role=tutorial-offer]").count() == 0  # offered once
    assert not errors, errors
    page.context.close()


def test_the_guide_can_be_left_at_any_step_and_is_one_tap_from_the_rules_card(
    browser: Any, server: str
) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    take_nickname(page, server, "随时走")
    page.click("[data-action=skip-tutorial]")
    assert page.locator("[data-role=tutorial-offer]").count() == 0
    create_table(page, turn_seconds=60)
    page.click("[data-action=help]")
    page.click("[data-role=help] [data-action=tutorial]")
    page.wait_for_selector("[data-action=tutorial-next]", timeout=WAIT_MS)
    page.click("[data-action=tutorial-next]")
    page.click("[data-action=leave-tutorial]")  # mid-way
    page.wait_for_selector("[data-role=hello]", timeout=WAIT_MS)
    page.context.close()
