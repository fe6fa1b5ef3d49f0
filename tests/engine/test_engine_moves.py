"""Legal-play generation against a brute-force oracle: every subset of 1–5 cards of the hand,
classified by the oracle (written from the rules), kept if it beats the play to beat (R17, R24) or,
for the first play, contains ♦4 (R26). The engine must give exactly those plays, each once."""

from __future__ import annotations

import functools
import random

from engine_oracle import DECK, RANK_ORDER, SUIT_ORDER, RefGame, canonical, legal_plays
from engine_oracle import classify as classify_oracle

from niugui import Game, classify, parse_cards
from niugui.cards import mask_of
from niugui.moves import plays


def codes(cards: object) -> list[str]:
    return [str(c) for c in cards]  # type: ignore[attr-defined]


def assert_same_plays(engine: list[list[str]], oracle: set[frozenset[str]], where: object) -> None:
    assert len(engine) == len({frozenset(p) for p in engine}), f"a play listed twice at {where}"
    assert canonical(engine) == canonical(oracle), where


def random_hand(rng: random.Random) -> list[str]:
    """Hands rich in combinations: uniform, few ranks (fours, full houses), or suit-heavy (flushes)."""
    size = rng.randint(1, 14)
    style = rng.randrange(3)
    if style == 0:
        return rng.sample(DECK, size)
    if style == 1:
        ranks = rng.sample(RANK_ORDER, rng.randint(2, 5))
        pool = [s + r for r in ranks for s in SUIT_ORDER] + ["BJ", "RJ"]
    else:
        suits = rng.sample(SUIT_ORDER, 2)
        pool = [s + r for r in RANK_ORDER for s in suits] + [rng.choice(DECK)]
    pool = list(dict.fromkeys(pool))
    return rng.sample(pool, min(size, len(pool)))


KINDS = [
    "single",
    "pair",
    "triple",
    "four",
    "straight",
    "flush",
    "full_house",
    "four_plus_one",
    "straight_flush",
]


def random_current(rng: random.Random, hand: list[str]) -> list[str] | None:
    """A play to beat of a random kind, made of cards outside the hand (None: a free lead)."""
    if rng.random() < 0.1:
        return None
    pool = combo_pool()
    for _ in range(100):
        choice = rng.choice(pool[rng.choice(KINDS)])
        if not choice & set(hand):
            return sorted(choice)
    return None


@functools.cache
def combo_pool() -> dict[str, list[frozenset[str]]]:
    """Combinations of every kind, from the oracle's plays of 150 random hands of up to 10 cards."""
    rng = random.Random(17)
    pool: dict[str, list[frozenset[str]]] = {kind: [] for kind in KINDS}
    for _ in range(150):
        hand = random_hand(rng)[:10]
        for play in legal_plays(hand, None, False):
            pool[oracle_kind(play)].append(play)
    return {kind: sorted(plays, key=sorted) for kind, plays in pool.items()}


def oracle_kind(cards: frozenset[str]) -> str:
    got = classify_oracle(sorted(cards))
    assert got is not None
    return got[0]


def test_R13_R25_R27_plays_match_bruteforce_on_random_positions() -> None:
    """R13–R25, R27: 1000 random (hand, play to beat) positions, leads included."""
    rng = random.Random(2027)
    seen_kinds: set[str] = set()
    for i in range(1000):
        hand = random_hand(rng)
        current = random_current(rng, hand)
        target = classify(parse_cards(current)) if current else None
        got = [codes(c.cards) for c in plays(mask_of(parse_cards(hand)), target)]
        want = legal_plays(hand, current, opening=False)
        assert_same_plays(got, want, (i, hand, current))
        if target is not None:
            seen_kinds.add(target.kind)
    assert seen_kinds == set(KINDS)


def test_R18_R23_plays_with_every_card_of_a_suit_pair() -> None:
    """R18–R23 on a 14-card hand dense in sequences and flushes, led and against each five-card class."""
    hand = [s + r for r in ("A", "2", "3", "4", "5", "6", "7") for s in ("H", "S")]
    for current in (
        None,
        "DA C2 D3 D4 D5",
        "D6 D7 D9 DJ DQ",
        "D8 C8 C9 D9 H8",
        "DK CK HK SK D8",
        "DT DJ DQ DK C9",
    ):
        target = parse_cards(current) if current else None
        got = [
            codes(c.cards) for c in plays(mask_of(parse_cards(hand)), classify(target) if target else None)
        ]
        want = legal_plays(hand, codes(target) if target else None, opening=False)
        assert_same_plays(got, want, current)


def test_R26_opening_plays_all_contain_D4_and_match_bruteforce() -> None:
    """R26: the holder of ♦4 moves first and every legal first play contains ♦4 — over 40 deals."""
    for seed in range(40):
        game = Game.deal(seed=seed, first_drawer=seed % 4)
        seat = game.to_move
        assert seat is not None and "D4" in codes(game.hand(seat))
        got = [codes(p) for p in game.legal_plays()]
        assert all("D4" in p for p in got) and ["D4"] in got
        assert_same_plays(got, legal_plays(codes(game.hand(seat)), None, opening=True), seed)
        assert not game.can_pass()


def test_R27_R29_legal_plays_match_bruteforce_along_whole_games() -> None:
    """R27–R29: along 6 seeded games (random legal actions), at every decision the engine's plays and
    can_pass equal the reference game's (which follows turns, tricks and 接风 from the rules)."""
    for seed in range(6):
        game = Game.deal(seed=1000 + seed, first_drawer=seed % 4)
        ref = RefGame([codes(game.hand(s)) for s in range(4)])
        rng = random.Random(seed)
        steps = 0
        while not game.over:
            assert game.to_move == ref.to_move
            assert game.can_pass() == ref.can_pass()
            got = [codes(p) for p in game.legal_plays()]
            assert_same_plays(got, ref.legal(), (seed, steps))
            seat = game.to_move
            assert seat is not None
            if game.can_pass() and (not got or rng.random() < 0.4):
                game.pass_turn()
                ref.pass_turn(seat)
            else:
                choice = rng.choice(got)
                game.play(choice)
                ref.play(seat, choice)
            steps += 1
        assert ref.over and game.result is not None
        assert game.result.to_dict() == ref.result()


def test_R13_R25_every_combination_of_the_whole_deck_counted_from_the_rules() -> None:
    """All combinations of the 54 cards, generated as if one hand held them all, counted by kind
    against numbers derived from the rules alone: singles 54 (R13); pairs 13·C(4,2) (R14); triples
    13·C(4,3) (R15); fours 13 (R16); straights 10 windows x (4^5 − 4) (R18); straight flushes 10 x 4
    (R23); flushes 4 x (C(13,5) − 10) (R19); full houses 13·4 x 12·6 (R20); fours plus one 13 x 50,
    any of the 50 other cards, jokers included (R21, R22) — and each one the oracle's kind, once."""
    from math import comb

    from niugui.cards import FULL_MASK

    want = {
        "single": 54,
        "pair": 13 * comb(4, 2),
        "triple": 13 * comb(4, 3),
        "four": 13,
        "straight": 10 * (4**5 - 4),
        "straight_flush": 10 * 4,
        "flush": 4 * (comb(13, 5) - 10),
        "full_house": 13 * 4 * 12 * 6,
        "four_plus_one": 13 * 50,
    }
    everything = plays(FULL_MASK)
    assert len({c.mask for c in everything}) == len(everything) == sum(want.values())
    got: dict[str, int] = dict.fromkeys(want, 0)
    for combo in everything:
        got[combo.kind] += 1
        assert oracle_kind(frozenset(codes(combo.cards))) == combo.kind
    assert got == want
