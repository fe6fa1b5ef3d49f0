"""Cards, their order and notation (R1–R6), checked against the rules text, not the engine's integers."""

from __future__ import annotations

import pytest
from engine_oracle import DECK, JOKERS, RANK_ORDER, SUIT_ORDER, single_beats

from niugui import CARDS, Card, classify, parse_cards
from niugui.cards import mask_of


def test_R1_deck_has_54_distinct_cards_13_ranks_4_suits_and_two_jokers() -> None:
    codes = [str(c) for c in CARDS]
    assert len(codes) == 54 and len(set(codes)) == 54
    assert sorted(codes) == sorted(DECK)
    suited = [c for c in CARDS if not c.is_joker]
    assert len(suited) == 52
    assert {c.rank_name for c in suited} == {"4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "3"}
    assert sorted(str(c) for c in CARDS if c.is_joker) == ["BJ", "RJ"]
    for r in RANK_ORDER:
        assert sum(1 for c in codes if c not in JOKERS and c[1:] == r) == 4


def test_R1_card_index_out_of_range_is_an_error() -> None:
    with pytest.raises(ValueError, match="R1"):
        Card(54)
    with pytest.raises(ValueError, match="R1"):
        Card(-1)


def test_R2_suit_order_diamond_club_heart_spade() -> None:
    """R2 ♦ < ♣ < ♥ < ♠: same rank, every suit pair, as singles."""
    for r in RANK_ORDER:
        for i, low in enumerate(SUIT_ORDER):
            for high in SUIT_ORDER[i + 1 :]:
                a, b = classify(parse_cards(high + r)), classify(parse_cards(low + r))
                assert a is not None and b is not None
                assert a.beats(b) and not b.beats(a), (high + r, low + r)
    assert [Card.parse(s + "4").symbol[0] for s in "DCHS"] == list("♦♣♥♠")


def test_R3_rank_order_4_lowest_3_highest_then_jokers() -> None:
    """R3 4 < 5 < … < K < A < 2 < 3 < 小王 < 大王, compared as singles of one suit."""
    order = [*("S" + r for r in RANK_ORDER), "BJ", "RJ"]
    for i, low in enumerate(order):
        for high in order[i + 1 :]:
            a, b = classify(parse_cards(high)), classify(parse_cards(low))
            assert a is not None and b is not None and a.beats(b), (high, low)
    # a rank beats a lower rank whatever the suits: ♦5 beats ♠4, ♦3 beats ♠2
    for strong, weak in [("D5", "S4"), ("D3", "S2"), ("D2", "SA"), ("DA", "SK"), ("BJ", "S3")]:
        a, b = classify(parse_cards(strong)), classify(parse_cards(weak))
        assert a is not None and b is not None and a.beats(b) and not b.beats(a)


@pytest.mark.parametrize("low", range(54), ids=lambda i: DECK[i])
def test_R5_R13_single_card_order_all_54x53_pairs(low: int) -> None:
    """R5/R13 exhaustive: for every ordered pair (a, b) of distinct cards, single a beats b iff the
    oracle (R3 rank, then R2 suit; jokers on top) says so — never both, always one."""
    a_code = DECK[low]
    a = classify(parse_cards(a_code))
    assert a is not None and a.kind == "single"
    for b_code in DECK:
        if b_code == a_code:
            continue
        b = classify(parse_cards(b_code))
        assert b is not None
        assert a.beats(b) == single_beats(a_code, b_code), (a_code, b_code)
        assert a.beats(b) != b.beats(a), (a_code, b_code)


def test_R5_weakest_and_strongest_cards() -> None:
    """R5: ♦4 is the weakest card, ♠3 the strongest suited card, then 小王, then 大王."""
    singles = {code: classify(parse_cards(code)) for code in DECK}
    beaten_by = {code: sum(1 for other in DECK if singles[code].beats(singles[other])) for code in DECK}  # type: ignore[union-attr]
    assert beaten_by["D4"] == 0
    assert beaten_by["RJ"] == 53 and beaten_by["BJ"] == 52 and beaten_by["S3"] == 51
    assert sorted(beaten_by.values()) == list(range(54))  # a strict total order


def test_R6_canonical_codes_suit_letter_then_rank() -> None:
    assert [str(c) for c in parse_cards("S3 D4 HT BJ RJ")] == ["S3", "D4", "HT", "BJ", "RJ"]
    for code in DECK:
        card = parse_cards(code)[0]
        assert str(card) == code and repr(card) == code
    assert Card.parse("S3").zh == "黑桃3" and Card.parse("HT").symbol == "♥10"
    assert Card.parse("BJ").zh == "小王" and Card.parse("RJ").zh == "大王"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("s3", "S3"),
        ("♠3", "S3"),
        ("黑桃3", "S3"),
        ("黑桃10", "ST"),
        ("s10", "ST"),
        ("hT", "HT"),
        ("红心10", "HT"),
        ("红桃10", "HT"),
        ("♥10", "HT"),
        ("方块4", "D4"),
        ("♦4", "D4"),
        ("梅花K", "CK"),
        ("♣q", "CQ"),
        ("小王", "BJ"),
        ("大王", "RJ"),
        ("bj", "BJ"),
        ("rj", "RJ"),
        ("da", "DA"),
    ],
)
def test_R6_parsing_accepts_every_notation(text: str, code: str) -> None:
    """R6: case-insensitive, 10 for T, ♦♣♥♠, 方块 梅花 红心/红桃 黑桃, 小王/大王."""
    assert [str(c) for c in parse_cards(text)] == [code]


def test_R6_all_notations_of_every_card_agree() -> None:
    zh = dict(zip("DCHS", ["方块", "梅花", "红心", "黑桃"], strict=True))
    sym = dict(zip("DCHS", "♦♣♥♠", strict=True))
    for code in DECK:
        if code in JOKERS:
            continue
        s, r = code[0], code[1]
        ranks = [r, r.lower(), "10"] if r == "T" else [r, r.lower()]
        for rank_text in ranks:
            for suit_text in (s, s.lower(), zh[s], sym[s]):
                assert str(parse_cards(suit_text + rank_text)[0]) == code


def test_R6_separators_whitespace_and_commas() -> None:
    assert [str(c) for c in parse_cards("D4, c4  H4,S4")] == ["D4", "C4", "H4", "S4"]


@pytest.mark.parametrize("bad", ["X9", "S1", "S11", "S0", "D", "JOKER", "S33", "♠", "11"])
def test_R6_bad_token_is_a_clear_error_naming_it(bad: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_cards(f"D4 {bad}")
    assert repr(bad) in str(info.value) or bad in str(info.value)
    assert "R6" in str(info.value)


def test_R1_R6_masks_round_trip() -> None:
    from niugui.cards import cards_of

    assert sorted(str(c) for c in cards_of(mask_of(parse_cards(" ".join(DECK))))) == sorted(DECK)
