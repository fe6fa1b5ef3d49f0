"""The terminal game's screen (niugui.cli.terminal_view), rendered from seat views only."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from rich.cells import cell_len

from niugui import Game
from niugui.cards import Card
from niugui.cli import terminal_view as tv
from niugui.game import OUTCOME_ZH

CARD = re.compile(r"[♦♣♥♠](?:10|[2-9JQKA])|小王|大王|small joker|big joker")


def shown_cards(text: str) -> set[Card]:
    names = {"small joker": "BJ", "big joker": "RJ"}
    return {Card.parse(names.get(token, token)) for token in CARD.findall(text)}


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
    """R1/R2/R6: ♥ and ♦ red, ♠ and ♣ plain; 小王 / 大王 by name, "small joker" / "big joker" in English."""
    styles = [tv.card_text(c).style for c in ("H5", "D4", "S3", "C4")]
    assert styles == ["bold red", "bold red", "bold", "bold"]
    assert tv.card_text("BJ").plain == "小王" and tv.card_text("RJ").plain == "大王"
    assert tv.card_text("RJ").style == "bold red" and tv.card_text("BJ").style == "bold"
    assert tv.card_text("BJ", "en").plain == "small joker" and tv.card_text("RJ", "en").plain == "big joker"
    assert tv.card_text("HT", "en").plain == "♥10"


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
    bots = {0: "expert", 2: "basic", 3: "random"}
    text = tv.plain(tv.status(view, "en", bots=bots))
    rows = {int(m.group(1)): m.group(0).rstrip() for m in re.finditer(r"^\w+ \(seat (\d)\).*$", text, re.M)}
    assert re.search(r"expert\s+11\s+♠3\s+—\s+♠3$", rows[0])  # its bot, 11 cards, the ♠3 mark, its play
    assert re.search(r"\)\s+12\s+—\s+—\s+♦10$", rows[1])
    assert re.search(r"basic\s+14\s+—\s+—\s+pass$", rows[2])
    assert re.search(r"random\s+13\s+—\s+—\s+♠K$", rows[3])
    assert "Your turn — to beat: single ♠3 from Left (seat 0)" in text
    assert "Your hand (12 cards): ♣10 ♥10 ♠10 ♦J ♣J ♥J ♠J ♦Q ♣Q ♥Q ♠Q ♦K" in text
    assert tv.plain(tv.hand_line({"seat": 1, "hand": ["D4"]}, "en")) == "Your hand (1 card): ♦4"
    lines = [tv.plain(line) for line in tv.changes(before, view, "zh")]
    assert lines == ["上家（座位0）出 单牌 ♠3", "上家（座位0）亮出 ♠3 标记（R11）"]


def hint_numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\[(\d+)\] ", text)]


def test_hints_number_the_legal_plays_and_say_whether_to_pass() -> None:
    """R26: on the opening lead every hint contains ♦4 and passing is not offered (R27); the numbers
    are those of the legal plays, the same in the short list and the full one."""
    game = Game.deal(seed=7, first_drawer=0)
    view = game.view(game.to_move)
    text = tv.plain(tv.hints(view, "en"))
    full = tv.plain(tv.hints(view, "en", full=True))
    assert hint_numbers(full) == list(range(1, len(view["legal_plays"]) + 1))
    assert set(hint_numbers(text)) <= set(hint_numbers(full))
    assert all("♦4" in entry for entry in re.findall(r"\[\d+\] ([^\[]*)", full))
    assert "may not pass (R27)" in text
    game.play("D4")
    after = game.view(game.to_move)
    assert "p = pass" in tv.plain(tv.hints(after, "en"))


def test_hints_show_one_play_of_each_class_and_the_rest_behind_more() -> None:
    """R20, R21: a triple with any pair (a four with any single) is one class: one entry with how
    many more are alike; `more` lists them all. Every class is shown, and each number is its play."""
    hands = [["D5", "C5", "S6", "D8", "DT", "CT", "DJ", "CJ", "HJ", "SJ", "HQ", "C3", "S3", "RJ"],
             ["D4", "C4", "H4", "S4", "D6", "C6", "H6", "D7", "C7", "H7", "S7", "D9", "C9"],
             ["H5", "S5", "H8", "S8", "C8", "H9", "S9", "HT", "ST", "DQ", "CQ", "SQ", "DK"],
             ["CK", "HK", "SK", "DA", "CA", "HA", "SA", "D2", "C2", "H2", "S2", "D3", "H3", "BJ"]]
    game = Game.from_hands(hands, first_drawer=0)
    game.play("D4 C4 H4 D6 C6", seat=1)  # a full house to beat
    game.pass_turn()
    game.pass_turn()
    view = game.view(0)
    plays = view["legal_plays"]
    short = tv.plain(tv.hints(view, "en"))
    full = tv.plain(tv.hints(view, "en", full=True))
    assert len(hint_numbers(full)) == len(plays) > len(hint_numbers(short))
    classes = {tv.play_class(play) for play in plays}
    assert {tv.play_class(plays[n - 1]) for n in hint_numbers(short)} == classes  # one entry per class
    assert len(hint_numbers(short)) == len(classes)
    fours = [p for p in plays if tv.play_class(p) == tv.play_class(["DJ", "CJ", "HJ", "SJ", "D5"])]
    assert len(fours) == 10 and "(+9)" in short and "type more to list every play" in short
    assert "(+" not in full


def free_lead_with_many_kinds() -> dict[str, Any]:
    """A seat's view on a free lead whose legal plays span at least five kinds."""
    for seed in range(100):
        game = Game.deal(seed=seed, first_drawer=0)
        game.play(game.legal_plays()[0])
        while game.can_pass():
            game.pass_turn()
        view = game.view(game.to_move)
        if len({str(tv.play_class(play)[0]) for play in view["legal_plays"]}) >= 5:
            return view
    raise AssertionError("no such deal")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_hints_fit_one_screen_and_say_when_something_is_not_listed(lang: str) -> None:
    """On a free lead with many classes, the short list keeps within the screen's height and width."""
    view = free_lead_with_many_kinds()
    for width, height in ((60, 12), (60, 30), (100, 35)):
        text = tv.plain(tv.hints(view, lang, width=width, height=height), width=width)
        lines = text.splitlines()
        assert len(lines) <= height - 1, text
        assert max(cell_len(line) for line in lines) <= width
    tight = tv.plain(tv.hints(view, lang, width=60, height=7), width=60)
    assert ("not listed" if lang == "en" else "没列出") in tight


def test_a_hint_with_nothing_playable_is_one_line() -> None:
    """R17, R24: nothing beats the play: one line says so and that you may pass, with no empty list."""
    view = {"legal_plays": [], "can_pass": True}
    assert tv.plain(tv.hints(view, "en")) == "Nothing you hold beats it (R17, R24): type p to pass"
    assert tv.plain(tv.hints(view, "zh")) == "你没有压得过的牌（R17、R24）：输入 p 过"


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
                     "——这一轮归对家（座位0），由对家（座位0）出牌——"]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_r32_r34_the_result_names_the_winner_outcome_scores_totals_and_reveals_every_hand(seed: int) -> None:
    """R32: the side of the 上游 wins, named with its seats; R33/R34: the outcome with what it scores,
    each seat's signed change; R36: the signed totals; R11: every hand revealed (wide layout)."""
    game, rng = random_game(seed), random.Random(seed)
    while not game.over:
        random_action(game, rng)
    view = game.view(0)
    result = view["result"]
    totals = [s * 3 - 1 for s in result["scores"]]
    text = tv.plain(tv.result_panel(view, "zh", totals, 3, bots={1: "a", 2: "b", 3: "c"}), width=160)
    lines = text.splitlines()
    assert lines[0] == "本局结束"
    mine = result["scores"][0]  # issue 28: right under it, what the game means for you
    said = f"你赢了 {mine:+d}" if mine > 0 else f"你输了 {mine:+d}" if mine else "不输不赢：你的分数不变"
    assert lines.pop(1) == said
    winners = [s for s in range(4) if result["scores"][s] > 0]
    if winners:
        side = "黑方" if winners[0] in result["black"] else "红方"
        if result["mode"] == "1v3" and winners[0] in result["black"]:
            side = "双牛鬼"
        assert result["finish"][0] in winners  # R32
        assert lines[1] == f"胜方：{side} — " + "、".join(tv.who(view, s, "zh") for s in winners)
    else:
        assert lines[1] == "不分胜负：平局"
    assert lines[2].startswith("结果：" + OUTCOME_ZH[result["outcome"]] + "（")
    places = ["上游", "二游", "三游"]
    for seat in range(4):
        row = re.search(rf"^\S+（座位{seat}）\s+(\S*)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", text, re.M)
        assert row, text
        place = places[result["finish"].index(seat)] if seat in result["finish"] else "下游"
        change = result["scores"][seat]
        assert row.group(1) == ("" if seat == 0 else "abc"[seat - 1]) or seat == 0
        assert row.group(3) == place
        assert row.group(4) == (f"{change:+d}" if change else "0")
        assert row.group(5) == f"{totals[seat]:+d}"  # signed like the change
        dealt = re.search(rf"^  \S+（座位{seat}）：(.*)$", text[text.index("发到的牌"):], re.M)
        assert dealt and shown_cards(dealt.group(1)) == set(game.dealt(seat))


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
    assert lines[:2] == ["Left (seat 0): single big joker", "Left (seat 0) went out first (上游)"]
    assert game.to_move == 1
    assert lines[-1] == ("—— Left (seat 0) won the trick but went out: the lead passes on to You (seat 1) "
                         "(接风, R29) ——")
    zh = [tv.plain(line) for line in tv.changes(None, game.view(1), "zh")]
    assert "上家（座位0）出完了：上游" in zh
    assert zh[-1] == "——这一轮归上家（座位0），上家（座位0）已出完，由你（座位1）接风出牌（R29）——"
