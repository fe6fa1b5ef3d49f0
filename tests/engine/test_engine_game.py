"""The game as a state machine (R7–R12, R26–R35), on crafted deals and on seeded random games that a
reference written from the rules (engine_oracle.RefGame) follows action by action."""

from __future__ import annotations

import functools
import json
import random
from collections import Counter
from typing import Any

import pytest
from engine_helpers import codes, crafted, random_game
from engine_oracle import DECK, black_side, deal, expected_result, hand_sizes, side_out

from niugui import Game, IllegalMove

PRIVATE = ("seat", "hand", "side", "legal_plays", "can_pass")


def snapshot(game: Game) -> str:
    """Everything observable of a game: every view and the record."""
    return json.dumps([game.view(s) for s in (None, 0, 1, 2, 3)] + [game.to_record()], sort_keys=True)


def expect_illegal(game: Game, rule: str, action: Any) -> IllegalMove:
    before = snapshot(game)
    with pytest.raises(IllegalMove) as info:
        action()
    assert info.value.rule == rule, str(info.value)
    assert isinstance(info.value, ValueError) and info.value.index is None  # .index: records only
    assert f"({rule}" in str(info.value) or f"{rule}:" in str(info.value) or rule in str(info.value)
    assert snapshot(game) == before, "an illegal action changed the game"
    return info.value


# ---- dealing and sides --------------------------------------------------------------------------


@pytest.mark.parametrize("first_drawer", range(4))
def test_R7_R9_deal_one_card_at_a_time_first_drawer_first_then_clockwise(first_drawer: int) -> None:
    """R9/R7: the deck is drawn first drawer first, then seat-1 (clockwise), … ; 14/14/13/13."""
    deck = DECK[7:] + DECK[:7]
    game = Game.from_deck(deck, first_drawer)
    want = deal(deck, first_drawer)
    for seat in range(4):
        assert sorted(codes(game.hand(seat))) == sorted(want[seat])
    assert [game.count(s) for s in range(4)] == hand_sizes(first_drawer)
    assert sorted(game.count(s) for s in range(4)) == [13, 13, 14, 14]
    assert game.count(first_drawer) == game.count((first_drawer - 1) % 4) == 14
    assert game.to_record()["deck"] == deck


def test_R9_hand_sizes_are_checked_for_the_first_drawer() -> None:
    hands = deal(DECK, 0)  # 14 14 13 13 for seats 0 and 3
    Game.from_hands(hands, 0)
    with pytest.raises(ValueError, match="R9"):
        Game.from_hands(hands, 1)  # seat 1 draws first: seats 1 and 0 must hold 14
    with pytest.raises(ValueError, match="R9"):
        Game.from_hands([hands[0], hands[1], hands[2]], 0)


def test_R8_R9_deal_is_seeded_and_reproducible_and_secure_without_seed() -> None:
    a, b = Game.deal(seed=5, first_drawer=2), Game.deal(seed=5, first_drawer=2)
    assert a.to_record() == b.to_record()
    assert Game.deal(seed=6, first_drawer=2).to_record()["deck"] != a.to_record()["deck"]
    decks = {tuple(Game.deal().to_record()["deck"]) for _ in range(5)}
    assert len(decks) == 5
    assert {Game.deal(seed=s).first_drawer for s in range(40)} == {0, 1, 2, 3}


def test_R8_R9_unseeded_deals_use_the_systems_secure_random_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 2: the shuffle is cryptographically secure (random.SystemRandom) unless a seed is given."""
    import niugui.game

    made: list[str] = []

    class Spy(random.SystemRandom):
        def __init__(self) -> None:
            made.append("secure")
            super().__init__()

    monkeypatch.setattr(niugui.game.random, "SystemRandom", Spy)
    Game.deal()
    assert made == ["secure"]
    Game.deal(seed=3)
    assert made == ["secure"]


def test_R10_sides_and_mode_from_the_holders_of_S3_and_S2() -> None:
    """R10: the ♠3 and ♠2 holders are 黑方 (2v2); one seat holding both is the 双牛鬼 (1v3)."""
    modes = Counter()
    for seed in range(60):
        game = Game.deal(seed=seed, first_drawer=seed % 4)
        black = black_side([codes(game.hand(s)) for s in range(4)])
        assert game.black == black
        assert game.mode == ("1v3" if len(black) == 1 else "2v2")
        modes[game.mode] += 1
    assert modes["1v3"] and modes["2v2"]
    assert crafted({1: ["S3", "S2"], 0: ["D4"]}).mode == "1v3"
    assert crafted({1: ["S3"], 3: ["S2"], 0: ["D4"]}).black == [1, 3]


# ---- hidden and public information ---------------------------------------------------------------


def test_R11_marks_appear_when_S3_or_S2_is_played_and_the_1v3_mode_stays_hidden() -> None:
    """R11: nobody is told sides or mode; playing ♠3/♠2 puts a public mark at that seat; 1v3 shows
    only once one seat has both marks; everything is revealed at the end."""
    game = crafted({0: ["D4", "C4"], 1: ["S3", "S2", "H5"], 2: ["BJ"], 3: ["RJ"]}, first_drawer=0)
    assert game.mode == "1v3"

    def no_secrets() -> None:
        for seat in (None, 0, 1, 2, 3):
            view = game.view(seat)
            text = json.dumps(view, ensure_ascii=False)
            assert "1v3" not in text and "black" not in view and "mode" not in view and "result" not in view
            if seat != 1:
                for card in ("S3", "S2"):
                    if card not in codes(game.dealt(1)) or card in codes(game.hand(1)):
                        assert f'"{card}"' not in text, (seat, card)

    no_secrets()
    game.play("D4")
    game.play("S2")  # seat 1
    assert all(game.view(s)["marks"] == [[], ["S2"], [], []] for s in (None, 0, 1, 2, 3))
    no_secrets()
    game.play("BJ")  # seat 2
    game.play("RJ")  # seat 3
    game.pass_turn()  # seat 0
    game.pass_turn()  # seat 1 cannot beat 大王
    game.pass_turn()  # seat 2: three passes end the trick, seat 3 leads
    assert game.to_move == 3 and game.current is None
    # seat 3 leads; seat 0 passes; seat 1 plays ♠3 on it if it can
    lead = min(game.legal_plays(), key=lambda p: (len(p), p))
    game.play(lead)
    game.pass_turn()
    assert len(lead) == 1
    game.play("S3")
    assert game.view(None)["marks"][1] == ["S2", "S3"]  # both marks: the 1v3 is now public
    no_secrets()


def test_R12_public_part_of_every_view_is_the_spectators_view() -> None:
    """R12: plays, passes, finish, counts and marks are public: every seat's view minus its own
    hand, legal plays and can_pass is the spectator's view; only the mover gets legal plays."""

    def check(game: Game, *_: object) -> None:
        public = game.view(None)
        assert public["seat"] is None and "hand" not in public and "legal_plays" not in public
        for seat in range(4):
            view = game.view(seat)
            assert {k: v for k, v in view.items() if k not in PRIVATE} == {
                k: v for k, v in public.items() if k not in PRIVATE
            }
            assert view["hand"] == codes(game.hand(seat))
            if seat != game.to_move:
                assert view["legal_plays"] == [] and view["can_pass"] is False
        counts = public["counts"]
        assert counts == [game.count(s) for s in range(4)]
        assert sum(counts) + sum(len(a["play"]) for a in public["history"] if "play" in a) == 54

    for seed in range(3):
        random_game(seed, on_step=check)


# ---- play -----------------------------------------------------------------------------------------


def test_R26_first_play_must_contain_D4_by_its_holder() -> None:
    game = crafted({2: ["D4", "C4", "S9"], 3: ["H4"]}, first_drawer=0)
    assert game.to_move == 2  # the holder of ♦4 leads, not the first drawer
    expect_illegal(game, "R26", lambda: game.play("S9"))
    expect_illegal(game, "R26", lambda: game.play("C4"))
    expect_illegal(game, "R27", lambda: game.play("D4", seat=0))
    game.play("D4 C4")
    assert game.current is not None and game.current.kind == "pair"


def test_R27_turns_counter_clockwise_pass_allowed_only_when_following() -> None:
    """R27/R7: after seat i comes seat i+1; a free lead must play; a follower may pass or beat."""
    game = crafted({1: ["D4", "C5"], 2: ["S4", "C4"], 3: ["H6", "BJ", "RJ"], 0: ["D7"]}, first_drawer=1)
    assert game.to_move == 1 and not game.can_pass()
    expect_illegal(game, "R27", lambda: game.pass_turn())
    game.play("D4")
    assert game.to_move == 2 and game.can_pass()
    expect_illegal(game, "R27", lambda: game.play("H6", seat=3))  # not seat 3's turn
    expect_illegal(game, "R27", lambda: game.pass_turn(seat=0))
    expect_illegal(game, "R27", lambda: game.play("H6"))  # seat 2 does not hold ♥6
    expect_illegal(game, "R17", lambda: game.play("C4 S4"))  # a pair on a single (R17)
    game.play("C4")  # ♣4 beats ♦4
    assert game.to_move == 3
    expect_illegal(game, "R25", lambda: game.play("BJ RJ"))  # two jokers are no combination
    expect_illegal(game, "R25", lambda: game.play([]))
    game.play("H6")
    assert game.to_move == 0
    expect_illegal(game, "R27", lambda: game.play("D4"))  # already played, not in seat 0's hand


def test_R17_R24_a_play_that_does_not_beat_names_the_rule() -> None:
    game = crafted({0: ["D4", "H5", "C5", "S6"], 1: ["D5", "S5", "DA", "C2", "H3", "S4"]}, first_drawer=0)
    game.play("D4")
    expect_illegal(game, "R17", lambda: game.play("D5 S5"))  # a pair on a single
    game.pass_turn()  # seat 1
    game.pass_turn()  # seat 2
    game.pass_turn()  # seat 3: seat 0 leads again (R29)
    game.play("H5 C5")
    expect_illegal(game, "R17", lambda: game.play("S4"))  # a single on a pair
    err = expect_illegal(game, "R24", lambda: game.play("DA C2 H3 S4 D5"))
    assert "never beat" in str(err)


def test_R28_a_seat_that_passed_may_play_later_in_the_same_trick() -> None:
    game = crafted({0: ["D4", "H6"], 1: ["S7"], 2: ["C5"]}, first_drawer=0)
    game.play("D4")  # seat 0
    game.pass_turn()  # seat 1 passes
    game.play("C5")  # seat 2
    game.pass_turn()  # seat 3
    game.play("H6")  # seat 0
    assert game.to_move == 1 and ["S7"] in [codes(p) for p in game.legal_plays()]
    game.play("S7")  # seat 1, who passed in this trick
    assert game.current is not None and codes(game.current.cards) == ["S7"]
    assert len(game.view(None)["trick"]) == 6


def test_R29_three_passes_end_the_trick_and_the_last_player_leads() -> None:
    game = crafted({0: ["D4"], 1: ["S7"]}, first_drawer=0)
    game.play("D4")
    game.play("S7")  # seat 1
    for seat in (2, 3, 0):
        assert game.to_move == seat
        game.pass_turn()
    assert game.to_move == 1 and game.current is None and not game.can_pass()
    view = game.view(1)
    assert view["trick"] == [] and view["current"] is None and view["can_pass"] is False
    assert len(view["history"]) == 5


def test_R29_R30_jiefeng_the_lead_passes_to_the_next_seat_holding_cards() -> None:
    """R29 接风: when the last player has gone out and all others passed, the next seat in play order
    that still holds cards leads — skipping seats that went out. Seen in seeded random games."""
    events: Counter[str] = Counter()

    def check(game: Game, ref: object, event: tuple[str, int, list[str]]) -> None:
        kind = event[0]
        actions = game.actions()
        if kind != "pass" or game.current is not None or game.over:
            return
        last = next(a for a in reversed(actions) if a[1] == "play")[0]
        if game.count(last):
            assert game.to_move == last
            return
        nxt = next((last + k) % 4 for k in (1, 2, 3) if game.count((last + k) % 4))
        assert game.to_move == nxt
        events["jiefeng"] += 1
        if nxt != (last + 1) % 4:
            events["skip"] += 1

    for seed in range(150):
        random_game(seed, pass_rate=0.6, on_step=check)
    assert events["jiefeng"] >= 10 and events["skip"] >= 1, events


def test_R30_R31_places_and_the_end_when_one_side_is_out() -> None:
    """R30: seats go out in order (上游, 二游, 三游), R31: the game ends the moment every seat of one
    side is out — never earlier, never later: 2v2 ends with 2 or 3 out, 1v3 with 1… 3 out."""
    lengths: Counter[tuple[str, int]] = Counter()
    for seed in range(120):
        game, _ = random_game(seed)
        result = game.result
        assert result is not None and game.to_move is None and game.legal_plays() == []
        finish = result.finish
        assert len(set(finish)) == len(finish) and all(game.count(s) == 0 for s in finish)
        assert all(game.count(s) > 0 for s in range(4) if s not in finish)
        assert side_out(game.black, finish) and not side_out(game.black, finish[:-1])
        assert game.view(None)["finish"] == finish
        lengths[(result.mode, len(finish))] += 1
        expect_illegal(game, "R31", lambda g=game: g.pass_turn())
        expect_illegal(game, "R31", lambda g=game: g.play("D4"))
    assert {k for k in lengths if k[0] == "2v2"} == {("2v2", 2), ("2v2", 3)}
    assert ("1v3", 1) in lengths and ("1v3", 3) in lengths


def test_R32_R33_R34_outcomes_and_scores_follow_the_finish_order() -> None:
    """R32–R34: the 上游's side wins; 牛鬼完胜 ±2, 小胜 ±1, 免炒 0; 双牛成功 +9/−3, 双牛逃跑 0,
    活抓双牛 −6/+2 — computed independently from the finish order; scores sum to zero."""
    outcomes: Counter[str] = Counter()
    for seed in range(400):
        game, _ = random_game(seed, pass_rate=0.3)
        assert game.result is not None
        got = game.result.to_dict()
        assert got == expected_result(black_side([codes(game.dealt(s)) for s in range(4)]), got["finish"])
        assert sum(got["scores"]) == 0
        winners = [s for s in range(4) if got["scores"][s] > 0]
        if winners:
            assert got["finish"][0] in winners  # R32
        outcomes[got["outcome"]] += 1
    assert set(outcomes) == {"sweep", "win", "draw", "double_win", "double_draw", "double_caught"}, outcomes


def test_R35_escape_costs_9_ends_the_game_and_changes_no_other_score() -> None:
    game = Game.deal(seed=11, first_drawer=0)
    mover = game.to_move
    assert mover is not None
    other = (mover + 2) % 4
    game.escape(other)  # at any moment, not only on one's turn
    result = game.result
    assert result is not None and game.over and game.to_move is None
    assert result.outcome == "escape" and result.scores == [-9 if s == other else 0 for s in range(4)]
    assert result.finish == [] and result.black == game.black
    assert game.view(None)["result"]["outcome"] == "escape"
    expect_illegal(game, "R31", lambda: game.escape(mover))


def test_R35_a_seat_that_has_gone_out_cannot_escape() -> None:
    for seed in range(60):
        game = Game.deal(seed=seed, first_drawer=0)
        gone = None
        for _ in range(400):
            if game.over or game.finish:
                break
            plays = game.legal_plays()
            if game.can_pass() and (not plays or len(game.actions()) % 3 == 0):
                game.pass_turn()
            else:
                game.play(max(plays, key=len))
        if game.finish and not game.over:
            gone = game.finish[0]
            expect_illegal(game, "R35", lambda g=game, s=gone: g.escape(s))
            holder = next(s for s in range(4) if game.count(s))
            game.escape(holder)
            assert game.result is not None and game.result.finish == [gone]
            assert game.result.scores == [-9 if s == holder else 0 for s in range(4)]
            return
    raise AssertionError("no game reached a seat out before the end")


def test_R35_escape_in_random_games_matches_reference() -> None:
    for seed in range(60):
        game, ref = random_game(seed, escape_rate=0.02)
        assert game.result is not None
        if game.result.outcome == "escape":
            assert sorted(game.result.scores) == [-9, 0, 0, 0]
            assert ref.escaped is not None and game.result.scores[ref.escaped] == -9


def test_R26_R27_illegal_actions_change_nothing() -> None:
    """Bad input raises IllegalMove naming the rule, and the game is exactly as before."""
    game = Game.deal(seed=3, first_drawer=1)
    seat = game.to_move
    assert seat is not None
    others = [c for c in DECK if c not in codes(game.hand(seat))]
    expect_illegal(game, "R27", lambda: game.play([others[0]]))
    expect_illegal(game, "R27", lambda: game.pass_turn())
    expect_illegal(game, "R27", lambda: game.play(["D4"], seat=(seat + 1) % 4))
    expect_illegal(game, "R1", lambda: game.play(["D4", "D4"]))
    with pytest.raises(ValueError, match="R6"):
        game.play("D4 Z9")
    assert snapshot(game) == snapshot(Game.deal(seed=3, first_drawer=1))


def test_R25_R27_check_play_and_check_pass_judge_without_changing_anything() -> None:
    """check_play returns the combination play() would apply, check_pass answers as pass_turn(); both
    raise the same IllegalMove as the action itself, and neither changes the game."""
    rng = random.Random(8)
    for seed in range(30):
        game = Game.deal(seed=seed, first_drawer=seed % 4)
        while not game.over:
            seat = game.to_move
            assert seat is not None
            before = snapshot(game)
            legal = game.legal_combos()
            for combo in legal:
                assert game.check_play(combo, seat) == combo
                assert game.check_play([str(c) for c in combo.cards], seat) == combo
            hand = codes(game.hand(seat))
            probe = rng.sample(hand, min(len(hand), rng.randint(1, 5)))
            try:
                checked: Any = game.check_play(probe)
            except IllegalMove as error:
                checked = (error.rule, str(error))
            if game.can_pass():
                game.check_pass(seat)
            else:
                expect_illegal(game, "R27", game.check_pass)
            expect_illegal(game, "R27", functools.partial(game.check_pass, (seat + 1) % 4))
            assert snapshot(game) == before, "a check changed the game"
            copy = game.copy()
            try:
                assert copy.play(probe) == checked
            except IllegalMove as error:
                assert (error.rule, str(error)) == checked
            assert snapshot(copy) != before or isinstance(checked, tuple)
            if game.can_pass() and (not legal or rng.random() < 0.3):
                game.pass_turn(seat)
            else:
                assert game.play(legal[rng.randrange(len(legal))], seat) in legal


def test_R12_view_schema_for_seats_and_spectators() -> None:
    """R12: a view holds exactly the documented keys; plays, passes and escapes have one shape."""
    base = {
        "seat",
        "first_drawer",
        "to_move",
        "counts",
        "marks",
        "finish",
        "history",
        "leads",
        "trick",
        "current",
        "over",
    }
    shapes = {("seat", "play", "kind"), ("seat", "pass"), ("seat", "escape")}

    def check(game: Game, *_: object) -> None:
        over = {"result", "hands", "dealt"} if game.over else set()
        assert set(game.view(None)) == base | over
        for seat in range(4):
            view = game.view(seat)
            assert set(view) == base | over | {"hand", "side", "legal_plays", "can_pass"}
            assert view["seat"] == seat and view["over"] == game.over
            black = len({c.code for c in game.dealt(seat)} & {"S3", "S2"})  # R10, R11: its own deal
            assert view["side"] == ("red", "black", "double")[black]
            if seat == game.to_move:
                assert view["legal_plays"] == [codes(p) for p in game.legal_plays()]
                assert view["can_pass"] == game.can_pass()
        view = game.view(None)
        for entry in view["history"] + view["trick"]:
            assert tuple(entry) in shapes, entry
            assert entry.get("pass", True) is True and entry.get("escape", True) is True
        if view["current"] is not None:
            assert set(view["current"]) == {"seat", "play", "kind"}
            assert view["trick"] and view["current"] == next(
                e for e in reversed(view["trick"]) if "play" in e
            )

    for seed in range(4):
        random_game(seed, escape_rate=0.01, on_step=check)
    with pytest.raises(ValueError, match="seat"):
        Game.deal(seed=1).view(4)


@pytest.mark.parametrize(
    ("black", "finish", "outcome", "scores"),
    [
        ([0, 2], [0, 2], "sweep", [2, -2, 2, -2]),  # 牛鬼完胜: winners 上游 and 二游
        ([0, 2], [2, 1, 0], "win", [1, -1, 1, -1]),  # 牛鬼小胜: 上游 and 三游
        ([0, 2], [0, 1, 3], "draw", [0, 0, 0, 0]),  # 免炒: the partner is 下游
        ([1, 3], [0, 2], "sweep", [2, -2, 2, -2]),  # the red side sweeps
        ([1, 3], [3, 0, 1], "win", [-1, 1, -1, 1]),
        ([1], [1], "double_win", [-3, 9, -3, -3]),  # 双牛成功
        ([1], [0, 1], "double_draw", [0, 0, 0, 0]),  # 双牛逃跑 (二游)
        ([1], [0, 2, 1], "double_draw", [0, 0, 0, 0]),  # 双牛逃跑 (三游)
        ([1], [0, 2, 3], "double_caught", [2, -6, 2, 2]),  # 活抓双牛
    ],
)
def test_R32_R33_R34_the_reference_scoring_table(
    black: list[int], finish: list[int], outcome: str, scores: list[int]
) -> None:
    """The oracle's scoring against the literal numbers of R33 (±2, ±1, 0) and R34 (+9/−3, 0, −6/+2)."""
    got = expected_result(black, finish)
    assert (got["outcome"], got["scores"]) == (outcome, scores)
