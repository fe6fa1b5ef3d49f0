"""The terminal game's screen (niugui.cli.terminal_view), rendered from seat views only."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from niugui import Game
from niugui.cards import Card
from niugui.cli import terminal_view as tv

CARD = re.compile(r"[♦♣♥♠](?:10|[2-9JQKA])|小王|大王|\b[BR]J\b")


def shown_cards(text: str) -> set[Card]:
    return {Card.parse(token) for token in CARD.findall(text)}


def random_game(seed: int) -> Game:
    return Game.deal(seed=seed, first_drawer=seed % 4)


def random_action(game: Game, rng: random.Random) -> None:
    plays = game.legal_plays()
    if game.can_pass() and (not plays or rng.random() < 0.4):
        game.pass_turn()
    else:
        game.play(rng.choice(plays))


def screen(view: dict[str, Any], before: dict[str, Any] | None, lang: str) -> str:
    parts = [tv.plain(tv.status(view, lang))]
    parts += [tv.plain(line) for line in tv.changes(before, view, lang)]
    if view.get("seat") is not None and view["to_move"] == view["seat"]:
        parts.append(tv.plain(tv.hints(view, lang)))
    return "\n".join(parts)


def test_card_colours_and_names() -> None:
    """R2/R6: ♥ and ♦ red, ♠ and ♣ plain; 小王 / 大王 by name (codes BJ / RJ in English)."""
    styles = [tv.card_text(c).style for c in ("H5", "D4", "S3", "C4")]
    assert styles == ["bold red", "bold red", "bold", "bold"]
    assert tv.card_text("BJ").plain == "小王" and tv.card_text("RJ").plain == "大王"
    assert tv.card_text("RJ").style == "bold red" and tv.card_text("BJ").style == "bold"
    assert tv.card_text("BJ", "en").plain == "BJ" and tv.card_text("HT", "en").plain == "♥10"


def test_the_hand_is_sorted_weakest_first() -> None:
    """R5: 4 < … < A < 2 < 3, then ♦ < ♣ < ♥ < ♠; jokers last."""
    view = {"seat": 0, "hand": ["RJ", "S3", "D4", "HA", "C2", "S4", "BJ"]}
    assert tv.plain(tv.hand_line(view, "zh")) == "你的手牌（7 张）：♦4 ♠4 ♥A ♣2 ♠3 小王 大王"


def test_a_straight_reads_in_sequence_order() -> None:
    """R4: A2345 is the lowest straight and reads A 2 3 4 5."""
    assert tv.plain(tv.play_text(["H4", "D5", "DA", "C2", "S3"], "straight")) == "♦A ♣2 ♠3 ♥4 ♦5"
    assert tv.plain(tv.play_text(["DA", "D2", "D7", "D9", "DK"], "flush")) == "♦2 ♦7 ♦9 ♦K ♦A"  # R19


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_screen_shows_a_card_another_seat_still_holds(lang: str) -> None:
    """R11, R12: whatever a seat's screen shows, it names no unplayed card of another seat."""
    checked = 0
    for seat in range(4):  # one whole random game watched from each seat
        game, rng = random_game(seat + (lang == "en") * 10), random.Random(seat)
        before: dict[str, Any] | None = None
        while not game.over:
            view = game.view(seat)
            others = {c for s in range(4) if s != seat for c in game.hand(s)}
            assert not shown_cards(screen(view, before, lang)) & others
            before = view
            checked += 1
            random_action(game, rng)
    assert checked > 100


def test_status_shows_counts_marks_places_trick_and_turn() -> None:
    """R11: a ♠3 mark appears at the seat that played it; R30: places; R27: the play to beat."""
    game = Game.from_hands(
        [["S3", "D4", "C4", "H4", "S4", "D5", "C5", "H5", "S5", "D6", "C6", "H6", "S6"],
         ["DT", "CT", "HT", "ST", "DJ", "CJ", "HJ", "SJ", "DQ", "CQ", "HQ", "SQ", "DK"],
         ["D7", "C7", "H7", "S7", "D8", "C8", "H8", "S8", "D9", "C9", "H9", "S9", "CK", "HK"],
         ["SK", "DA", "CA", "HA", "SA", "D2", "C2", "H2", "S2", "D3", "C3", "H3", "BJ", "RJ"]],
        first_drawer=3,
    )
    game.play("D4")
    game.play("DT")
    game.pass_turn()
    game.play("SK")
    before = game.view(1)
    game.play("S3")
    view = game.view(1)
    text = tv.plain(tv.status(view, "en"))
    rows = {int(m.group(1)): m.group(0) for m in re.finditer(r"^│.*\(seat (\d)\).*$", text, re.M)}
    assert re.search(r"│ 11\s*│ ♠3\s*│ —\s*│ ♠3", rows[0])  # 11 cards left, the ♠3 mark, its play
    assert re.search(r"│ 12\s*│ —\s*│ —\s*│ ♦10", rows[1])
    assert re.search(r"│ 14\s*│ —\s*│ —\s*│ pass", rows[2])
    assert re.search(r"│ 13\s*│ —\s*│ —\s*│ ♠K", rows[3])
    assert "Your turn — To beat: Left (seat 0)'s single ♠3" in text
    assert "Your hand (12 cards): ♣10 ♥10 ♠10 ♦J ♣J ♥J ♠J ♦Q ♣Q ♥Q ♠Q ♦K" in text
    lines = [tv.plain(line) for line in tv.changes(before, view, "zh")]
    assert lines == ["上家（座位0）出 单牌 ♠3", "上家（座位0）亮出 ♠3 标记（R11）"]


def test_hints_number_the_legal_plays_and_say_whether_to_pass() -> None:
    """R26: on the opening lead every hint contains ♦4 and passing is not offered (R27)."""
    game = Game.deal(seed=7, first_drawer=0)
    view = game.view(game.to_move)
    text = tv.plain(tv.hints(view, "en"))
    numbered = re.findall(r"\[(\d+)\] (.*)", text)
    assert [int(n) for n, _ in numbered] == list(range(1, len(view["legal_plays"]) + 1))
    assert all("♦4" in cards for _, cards in numbered)
    assert "may not pass (R27)" in text
    game.play("D4")
    after = game.view(game.to_move)
    assert "p = pass" in tv.plain(tv.hints(after, "en"))


def test_changes_tell_who_did_what_and_when_a_trick_ends() -> None:
    """R29: after three passes the last player leads; R30: going out is announced with its place."""
    game = Game.from_hands(
        [["S3", "D4", "C4", "H4", "S4", "D5", "C5", "H5", "S5", "D6", "C6", "H6", "S6"],
         ["DT", "CT", "HT", "ST", "DJ", "CJ", "HJ", "SJ", "DQ", "CQ", "HQ", "SQ", "DK"],
         ["D7", "C7", "H7", "S7", "D8", "C8", "H8", "S8", "D9", "C9", "H9", "S9", "CK", "HK"],
         ["SK", "DA", "CA", "HA", "SA", "D2", "C2", "H2", "S2", "D3", "C3", "H3", "BJ", "RJ"]],
        first_drawer=3,
    )
    lines: list[str] = []
    before = game.view(2)
    for action in ("D4", "pass", "pass", "pass"):
        game.pass_turn() if action == "pass" else game.play(action)
        after = game.view(2)
        lines += [tv.plain(line) for line in tv.changes(before, after, "zh")]
        before = after
    assert lines == ["对家（座位0）出 单牌 ♦4", "上家（座位1）过", "你（座位2）过", "下家（座位3）过",
                     "—— 这一轮归对家（座位0），由对家（座位0）出牌 ——"]


@pytest.mark.parametrize("seed", [1, 2])
def test_the_result_names_the_outcome_scores_totals_and_reveals_every_hand(seed: int) -> None:
    """R32–R34: the outcome by name and each seat's change; R36: the totals given; R11: all revealed."""
    game, rng = random_game(seed), random.Random(seed)
    while not game.over:
        random_action(game, rng)
    view = game.view(0)
    result = view["result"]
    totals = [s * 3 for s in result["scores"]]
    text = tv.plain(tv.result_panel(view, "zh", totals, 3), width=160)
    assert text.startswith("本局结束：" + {"sweep": "牛鬼完胜", "win": "牛鬼小胜", "draw": "免炒",
                                       "double_win": "双牛成功", "double_draw": "双牛逃跑",
                                       "double_caught": "活抓双牛"}[result["outcome"]])
    places = ["上游", "二游", "三游"]
    for seat in range(4):
        row = re.search(rf"^│ \S+（座位{seat}）\s*│ (\S+)\s*│ (\S+)\s*│ (\S+)\s*│(.*)$", text, re.M)
        assert row, text
        place = places[result["finish"].index(seat)] if seat in result["finish"] else "下游"
        change = result["scores"][seat]
        assert row.group(1) == place
        assert row.group(2) == (f"{change:+d}" if change else "0") and int(row.group(3)) == totals[seat]
        assert shown_cards(row.group(4)) == set(game.dealt(seat))  # what is left and what was dealt


def test_the_lead_passing_on_is_told_when_the_trick_winner_is_out() -> None:
    """R29 接风: the trick's winner went out, so the next seat holding cards leads."""
    game = Game.from_hands(
        [["D4", "S3", "RJ", "C4", "H4", "S4", "D5", "C5", "H5", "S5", "D6", "C6", "H6"],
         ["DT", "CT", "HT", "ST", "DJ", "CJ", "HJ", "SJ", "DQ", "CQ", "HQ", "SQ", "DK"],
         ["D7", "C7", "H7", "S7", "D8", "C8", "H8", "S8", "D9", "C9", "H9", "S9", "CK", "HK"],
         ["SK", "DA", "CA", "HA", "SA", "D2", "C2", "H2", "S2", "D3", "C3", "H3", "BJ", "S6"]],
        first_drawer=3,
    )
    for play in ("D4 C4 H4 S4 D5", "C5 H5 S5 D6 C6", "H6", "S3"):  # seat 0 leads and keeps the lead
        game.play(play, seat=0)
        for _ in range(3):
            game.pass_turn()
    before = game.view(1)
    lines: list[str] = []
    for action in ("RJ", "pass", "pass", "pass"):  # seat 0 goes out (上游); the others pass
        game.pass_turn() if action == "pass" else game.play(action, seat=0)
        after = game.view(1)
        lines += [tv.plain(line) for line in tv.changes(before, after, "en")]
        before = after
    assert lines[:2] == ["Left (seat 0): single RJ", "Left (seat 0): out, 1st out"]
    assert game.to_move == 1
    assert lines[-1] == ("—— Left (seat 0) takes the trick but is out: You (seat 1) takes over the lead "
                         "(接风, R29) ——")
