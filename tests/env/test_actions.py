"""The action encoding (niugui.env.actions): exact, complete, stable and fast to look up (R13–R25, R27).

It needs only the engine, so these tests run without the env extra."""

from __future__ import annotations

import hashlib
import random
from itertools import combinations, pairwise
from math import comb

import pytest
from env_helpers import random_position
from hypothesis import given, settings
from hypothesis import strategies as st

from niugui import Combo, Game, classify
from niugui.cards import cards_of, parse_cards
from niugui.combos import KINDS, classify_mask
from niugui.env import actions
from niugui.env.actions import ACTION_COUNT, COMBO_COUNT, KIND_IDS, PASS, decode, encode


def expected_counts() -> dict[str, int]:
    """How many combinations of each kind the rules allow, counted from RULES.md by combinatorics."""
    suit_choices = {size: comb(4, size) for size in (2, 3)}
    sequences = 10  # R4: A2345 … 10JQKA
    return {
        "single": 54,  # R13: any card
        "pair": 13 * suit_choices[2],  # R14: no joker pairs
        "triple": 13 * suit_choices[3],  # R15
        "four": 13,  # R16
        "straight": sequences * (4**5 - 4),  # R18: not all one suit
        "flush": 4 * (comb(13, 5) - sequences),  # R19: one suit, not a sequence
        "full_house": 13 * suit_choices[3] * 12 * suit_choices[2],  # R20
        "four_plus_one": 13 * (54 - 4),  # R21, R22: any other card, jokers included
        "straight_flush": sequences * 4,  # R23
    }


def test_R13_R23_the_table_holds_each_combination_of_the_rules_exactly_once() -> None:
    counts = expected_counts()
    assert {kind: len(KIND_IDS[kind]) for kind in KINDS} == counts
    assert COMBO_COUNT == sum(counts.values()) == 19939
    seen = set()
    for action in range(COMBO_COUNT):
        combo = decode(action)
        assert combo is not None
        again = classify_mask(combo.mask)
        assert again is not None and again.kind == combo.kind and again.value == combo.value
        assert action in KIND_IDS[combo.kind]
        assert encode(combo) == action
        seen.add(combo.mask)
    # distinct valid combinations, as many as the rules allow: the table is complete
    assert len(seen) == COMBO_COUNT


def test_R27_the_pass_is_the_last_id() -> None:
    assert PASS == COMBO_COUNT and ACTION_COUNT == COMBO_COUNT + 1
    assert decode(PASS) is None and encode(None) == PASS
    assert actions.decode_play(PASS) is None and actions.encode_play(None) == PASS


def test_R17_R24_ids_of_a_kind_rise_with_strength() -> None:
    for kind in KINDS:
        ids = KIND_IDS[kind]
        for lower, higher in pairwise(ids):
            weak, strong = combo_at(lower), combo_at(higher)
            assert (weak.value, weak.mask) < (strong.value, strong.mask)
            assert not weak.beats(strong)
    assert [KIND_IDS[k].start for k in KINDS] == sorted(KIND_IDS[k].start for k in KINDS)


DIGEST = "ca937b220ab822de"
"""The first 16 hex digits of sha256 over every combination's mask (7 bytes, little-endian) in id order."""


def combo_at(action: int) -> Combo:
    combo = decode(action)
    assert combo is not None, action
    return combo


def test_ids_are_stable() -> None:
    """The encoding is a contract with every model trained on it: the digest changes only if an id
    does. If one must change, that is a new environment version (metadata name ``niugui_v1``)."""
    masks = b"".join(combo_at(i).mask.to_bytes(7, "little") for i in range(COMBO_COUNT))
    assert hashlib.sha256(masks).hexdigest()[:16] == DIGEST
    named = {
        "D4": 0,
        "RJ": 53,
        "D4 C4": 54,
        "D4 C4 H4": 132,
        "D4 C4 H4 S4": 184,
        "DA D2 D3 C4 D5": 197,  # R18: the lowest straight, A2345 ending ♦5
        "S4 S8 SJ SK S2": 13370,  # R19: a K-high flush
        "ST SJ SQ SK SA": 19938,  # R23: the highest straight flush
    }
    for codes, action in named.items():
        combo = classify(parse_cards(codes))
        assert combo is not None and encode(combo) == action, codes
        assert combo_at(action) == combo


def test_encode_and_decode_refuse_what_is_not_an_action() -> None:
    for bad in (-1, ACTION_COUNT, 10**9):
        with pytest.raises(ValueError, match="not an action id"):
            decode(bad)
    with pytest.raises(ValueError, match="R25"):
        actions.encode_mask(0b11 << 52)  # two jokers (R25)
    with pytest.raises(ValueError, match="R6"):
        actions.encode_play(["D4", "D4"])
    with pytest.raises(ValueError, match="R6"):
        actions.encode_play(["X9"])


@settings(max_examples=400, deadline=None)
@given(st.sets(st.integers(0, 53), min_size=1, max_size=5))
def test_R25_a_card_set_has_an_id_exactly_when_it_is_a_combination(cards: set[int]) -> None:
    mask = sum(1 << c for c in cards)
    combo = classify_mask(mask)
    if combo is None:
        with pytest.raises(ValueError):
            actions.encode_mask(mask)
    else:
        assert decode(actions.encode_mask(mask)) == combo


POSITIONS = 200


def test_every_combination_of_every_seat_round_trips_at_200_random_positions() -> None:
    """Each seat's every combination (all card subsets its hand can play, by brute force through
    classify) has an id that decodes back to it; the seat to move's mask is exactly its legal plays."""
    rng = random.Random(12)
    for position in range(POSITIONS):
        game, _ = random_position(rng.randrange(2**32))
        for seat in range(4):
            cards = [1 << c for c in cards_of(game.hand_mask(seat))]
            for size in range(1, 6):
                for subset in combinations(cards, size):
                    combo = classify_mask(sum(subset))
                    if combo is not None:
                        back = decode(encode(combo))
                        assert back == combo and back is not None and back.kind == combo.kind, position
        legal = game.legal_combos()
        ids = actions.legal_actions(game)
        assert ids == sorted(ids) and len(set(ids)) == len(ids)
        assert {combo_at(i).mask for i in ids if i != PASS} == {c.mask for c in legal}
        assert (PASS in ids) == game.can_pass()
        assert actions.legal_actions_of_view(game.view(game.to_move)) == ids


def test_R26_the_opening_ids_are_the_plays_with_D4() -> None:
    game = Game.deal(seed=3, first_drawer=1)
    ids = actions.legal_actions(game)
    assert PASS not in ids  # R27: no pass on a free lead
    assert all(combo_at(i).mask & 1 for i in ids)
    assert len(ids) == len(game.legal_combos())


def test_a_decoded_action_is_played_by_the_engine() -> None:
    game = Game.deal(seed=5, first_drawer=0)
    action = actions.legal_actions(game)[-1]
    combo = decode(action)
    assert combo is not None
    assert game.play(combo) == combo
    assert actions.decode_play(action) == [str(c) for c in combo.cards]
