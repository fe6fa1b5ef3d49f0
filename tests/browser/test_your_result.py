"""Issue 28, point 2: the result speaks to you. For every outcome (R33–R35) and every seat, the result
panel says 你赢了 / 你输了 / 不输不赢 (平局; or that you escaped, or that someone else did) with your score
change, marks your row, and gives the outcome's traditional name a plain line of what it means — in
Chinese and in English; a spectator's (seat null) says nothing personal. Then one whole game against
bots on a phone: the panel's words match your row's change."""

from __future__ import annotations

from typing import Any

import pytest

from niugui.game import escape_scores, score

from .conftest import screenshot
from .pages import create_table, play_until_result, settle, take_nickname

PHONE = {"width": 360, "height": 740}

# (black, finish) giving each outcome by the engine's own scoring (R33, R34); escape by seat 1 (R35).
GAMES = {
    "sweep": ([0, 2], [2, 0]),
    "win": ([0, 2], [0, 1, 2]),
    "draw": ([0, 2], [0, 1, 3]),
    "double_win": ([1], [1]),
    "double_draw": ([1], [0, 1]),
    "double_caught": ([1], [3, 0, 2]),
}

RENDER = """async ({results, lang}) => {
  const i18n = await import('/js/i18n.js');
  await i18n.setLang(lang);
  const { resultPanel } = await import('/js/result.js');
  const names = ['甲', '乙', '丙', '丁'];
  const out = [];
  for (const result of results) {
    for (const seat of [0, 1, 2, 3, null]) {
      const empty = [[], [], [], []];
      const view = { seat, over: true, result, hands: empty, dealt: empty, first_drawer: 0 };
      const box = resultPanel({ view, names, totals: [0, 0, 0, 0], proof: null, buttons: [] });
      const you = box.querySelector('[data-role=you-result]');
      out.push({
        outcome: result.outcome, seat,
        verdict: you ? you.dataset.verdict : null, text: you ? you.textContent : null,
        explain: box.querySelector('[data-role=outcome-explain]').textContent,
        rows: [...box.querySelectorAll('tr[data-you]')].map((r) => Number(r.dataset.seat)),
      });
    }
  }
  await i18n.setLang('zh');
  return out;
}"""

WORDS = {
    "zh": {"won": "你赢了", "lost": "你输了", "draw": "不输不赢", "escaped": "你逃跑了",
           "unscored": "不计分"},
    "en": {"won": "You won", "lost": "You lost", "draw": "You drew", "escaped": "You escaped",
           "unscored": "no score"},
}


def results() -> list[dict[str, Any]]:
    out = []
    for outcome, (black, finish) in GAMES.items():
        scored, scores = score(black, finish)
        assert scored == outcome
        mode = "1v3" if len(black) == 1 else "2v2"
        out.append({"mode": mode, "outcome": outcome, "finish": finish, "scores": scores, "black": black})
    escape = {"mode": "2v2", "outcome": "escape", "finish": [], "scores": escape_scores(1), "black": [0, 2]}
    out.append(escape)
    return out


@pytest.fixture(scope="module")
def page(browser: Any, static_url: str) -> Any:
    page = browser.new_page()
    page.goto(f"{static_url}/index.html#/replay")
    yield page
    page.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_outcome_speaks_to_every_seat(page: Any, lang: str) -> None:
    given = {r["outcome"]: r for r in results()}
    rendered = page.evaluate(RENDER, {"results": list(given.values()), "lang": lang})
    assert len(rendered) == 7 * 5
    explains = set()
    for shown in rendered:
        result, seat = given[shown["outcome"]], shown["seat"]
        explains.add(shown["explain"])
        assert shown["explain"] and not shown["explain"].startswith("outcome_"), shown
        if seat is None:
            assert shown["verdict"] is None and shown["rows"] == [], shown
            continue
        delta = result["scores"][seat]
        if result["outcome"] == "escape":
            verdict = "escaped" if delta < 0 else "unscored"
        else:
            verdict = "won" if delta > 0 else "lost" if delta < 0 else "draw"
        assert shown["verdict"] == verdict, shown
        assert WORDS[lang][verdict] in shown["text"], shown
        if delta:
            assert f"{delta:+d}" in shown["text"], shown
        assert shown["rows"] == [seat], shown
    assert len(explains) == 7  # each outcome has its own plain line


def test_a_game_against_bots_ends_with_your_result(browser: Any, server: str) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    take_nickname(page, server, "结果")
    create_table(page, turn_seconds=60)
    page.click("[data-action=fill-bots]")
    page.wait_for_selector(".hand [data-card]")
    play_until_result(page)
    you = page.locator("[data-role=you-result]")
    verdict = you.get_attribute("data-verdict")
    delta = int(page.inner_text("tr[data-you] [data-role=delta]").replace("−", "-"))
    assert verdict == ("won" if delta > 0 else "lost" if delta < 0 else "draw"), (verdict, delta)
    if delta:
        assert f"{delta:+d}" in you.inner_text()
    assert page.inner_text("[data-role=outcome-explain]")
    settle(page)
    screenshot(page, "issue28-result-phone")
    assert not errors, errors
    context.close()
