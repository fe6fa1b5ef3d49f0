"""The expert's play on hand-made positions: partners (R10, R11), going out (R30), 1v3 (R34), splits."""

from __future__ import annotations

from niugui.bots.expert import decide
from niugui.bots.knowledge import Situation, infer_sides
from niugui.cards import mask_of_codes, parse_cards
from niugui.combos import Combo, classify


def situation(
    hand: str,
    counts: list[int],
    current: tuple[str, int] | None = None,
    marks: dict[int, str] | None = None,
    played: str = "",
    seat: int = 0,
) -> Situation:
    mark_masks = [0, 0, 0, 0]
    for s, text in (marks or {}).items():
        mark_masks[s] = mask_of_codes(text.split())
    combo: Combo | None = None
    played_mask = mask_of_codes(played.split()) | sum(mark_masks)
    if current is not None:
        combo = classify(parse_cards(current[0]))
        assert combo is not None
        played_mask |= combo.mask
    return Situation(
        seat=seat,
        hand=mask_of_codes(hand.split()),
        counts=counts,
        marks=mark_masks,
        played=played_mask,
        finish=[s for s in range(4) if counts[s] == 0],
        current=combo,
        current_seat=-1 if current is None else current[1],
        opening=False,
    )


def codes(combo: Combo | None) -> list[str] | None:
    return None if combo is None else [str(c) for c in combo.cards]


HAND = "S3 D5 C7 HT CK SA"  # holds ♠3: 黑方 (R10)


def test_does_not_beat_a_known_partner() -> None:
    """R10, R11: seat 2 has shown ♠2, so it is this ♠3 holder's partner; its 9 is left to stand."""
    sit = situation(HAND, [6, 10, 8, 10], current=("H9", 2), marks={2: "S2"})
    assert infer_sides(sit).partner == [0.0, 0.0, 1.0, 0.0]
    assert decide(sit) is None


def test_beats_the_same_play_from_an_opponent() -> None:
    sit = situation(HAND, [6, 10, 8, 10], current=("H9", 1), marks={2: "S2"})
    assert codes(decide(sit)) == ["HT"]  # the weakest single that fits the split


def test_beats_a_partner_when_an_opponent_could_go_out_over_it() -> None:
    """Seat 3, still to act and holding one card, could go out over the partner's 9 (R30)."""
    sit = situation(HAND + " RJ", [7, 10, 8, 1], current=("H9", 2), marks={2: "S2"}, played="BJ")
    assert codes(decide(sit)) in (["S3"], ["RJ"])  # nothing unseen beats either (小王 is played)


def test_feeds_a_partner_about_to_go_out() -> None:
    """The partner (next to play) holds one card: lead the weakest single so it can go out."""
    sit = situation("S3 D5 D6 C7 H8 S9 HK SK", [8, 1, 9, 9], marks={1: "S2"})
    assert codes(decide(sit)) == ["D5"]


def test_no_single_lead_when_an_opponent_holds_one_card() -> None:
    """Seat 1 (黑方, it showed ♠3) would go out over any single this red seat leads."""
    sit = situation("D5 C9 H9 HJ SQ", [5, 1, 9, 9], marks={1: "S3", 2: "S2"})
    assert codes(decide(sit)) == ["C9", "H9"]


def test_goes_out_when_it_can() -> None:
    """R30: a hand that is one combination is played at once, leading or following."""
    assert codes(decide(situation("C9 H9", [2, 9, 9, 9]))) == ["C9", "H9"]
    assert codes(decide(situation("D2", [1, 9, 9, 9], current=("SA", 2)))) == ["D2"]


def test_keeps_a_straight_together() -> None:
    """A 5 is not beaten with a card torn from 6-7-8-9-10: the lone K goes (or the expert passes)."""
    sit = situation("D6 C7 H8 S9 DT HK C4", [7, 12, 12, 12], current=("S5", 1))
    choice = decide(sit)
    assert choice is None or codes(choice) == ["HK"]


def test_the_double_niugui_knows_it_is_alone() -> None:
    """R10, R34: holding ♠3 and ♠2 means 1v3 — every other seat is an opponent, even one that helped."""
    sit = situation("S3 S2 D5 C7 HT CK", [6, 10, 8, 10], current=("H9", 2))
    sides = infer_sides(sit)
    assert sides.double and sides.partner == [0.0, 0.0, 0.0, 0.0]
    assert decide(sit) is not None


def test_the_three_help_each_other_against_a_shown_double() -> None:
    """R11: once seat 1 shows both marks, the other three know they are partners."""
    sit = situation("D5 C7 HT CK", [4, 8, 6, 9], current=("H9", 2), marks={1: "S3 S2"})
    sides = infer_sides(sit)
    assert sides.double_seat == 1 and sides.partner == [0.0, 0.0, 1.0, 1.0]
    assert decide(sit) is None
    sit = situation("D5 C7 HT CK", [4, 8, 6, 9], current=("H9", 1), marks={1: "S3 S2"})
    assert decide(sit) is not None


def test_red_seat_knows_the_last_seat_once_both_blacks_show() -> None:
    """R10: ♠3 at seat 1 and ♠2 at seat 3: seat 2 is this red seat's partner."""
    sit = situation("D5 C7", [2, 8, 6, 9], marks={1: "S3", 3: "S2"})
    assert infer_sides(sit).partner == [0.0, 0.0, 1.0, 0.0]


def test_the_double_niugui_keeps_its_second_mark_back() -> None:
    """R11: a 双牛鬼 that has shown ♠3 does not show ♠2 on a low single (that would reveal 1v3)."""
    sit = situation("S2 D5 C7 HT", [4, 10, 8, 10], current=("HA", 2), marks={0: "S3"})
    assert infer_sides(sit).double
    assert decide(sit) is None
    urgent = situation("S2 D5 C7 HT", [4, 1, 8, 10], current=("HA", 1), marks={0: "S3"})
    assert codes(decide(urgent)) == ["S2"]  # but it stops seat 1 going out with its last card
