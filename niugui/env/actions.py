"""The fixed action encoding: every combination of R13–R23 by its exact cards, and the pass.

Needs only the engine (no numpy, no pettingzoo), so a learned bot can use it as it is.

Ids are dense and stable, ``0 … ACTION_COUNT - 1``: the combinations grouped by kind in the order
single, pair, triple, four (R13–R16), then the five-card classes in R24 order (straight, flush,
full house, four plus one, straight flush), each kind sorted by strength (its engine value) and,
at equal strength, by its cards' mask; :data:`PASS` is the last id. The table is built at import
from the rules — every candidate is judged by :func:`niugui.combos.classify` — never by hand.

>>> from niugui import classify, parse_cards
>>> ACTION_COUNT, PASS
(19940, 19939)
>>> encode(classify(parse_cards("D4"))), encode(classify(parse_cards("RJ"))), encode(None)
(0, 53, 19939)
>>> decode(54)
Combo('pair', [D4, C4])
>>> decode(encode(classify(parse_cards("ST SJ SQ SK SA")))) == classify(parse_cards("ST SJ SQ SK SA"))
True
>>> decode_play(PASS) is None, encode_play(["D4", "C4"])
(True, 54)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import combinations
from typing import Any

from ..cards import CODE_INDEX, DECK_SIZE
from ..combos import KINDS, STRAIGHT, Combo, classify_mask
from ..game import Game

_RANKS = 13
_SUITS = 4


def _card(rank: int, suit: int) -> int:
    return 1 << (rank * _SUITS + suit)


def _candidates() -> Iterator[int]:
    """Every card set that can be a combination (R13–R23): a superset, judged by ``classify``.

    Singles are any card; pairs, triples and fours lie within a rank (R14–R16); a five-card
    combination without a joker is five ranks (one suit, or a sequence — R18, R19, R23), a triple and
    a pair (R20) or a four and one card (R21); a joker only ever completes a four (R22).
    """
    for card in range(DECK_SIZE):
        yield 1 << card
    for rank in range(_RANKS):
        for size in (2, 3, 4):
            for suits in combinations(range(_SUITS), size):
                yield sum(_card(rank, s) for s in suits)
    for ranks in combinations(range(_RANKS), 5):
        for suit in range(_SUITS):  # one suit: a flush or a straight flush
            yield sum(_card(r, suit) for r in ranks)
        # Which rank sets are sequences (R4) is the engine's to say: ask it with mixed suits.
        mixed = classify_mask(sum(_card(r, 0) for r in ranks[:4]) | _card(ranks[4], 1))
        if mixed is not None and mixed.kind == STRAIGHT:
            for assignment in range(_SUITS**5):  # every suit assignment, as five base-4 digits
                yield sum(_card(r, assignment // _SUITS**i % _SUITS) for i, r in enumerate(ranks))
    for triple_rank in range(_RANKS):
        for pair_rank in range(_RANKS):
            if pair_rank == triple_rank:
                continue
            for triple in combinations(range(_SUITS), 3):
                for pair in combinations(range(_SUITS), 2):
                    yield sum(_card(triple_rank, s) for s in triple) | sum(_card(pair_rank, s) for s in pair)
    for rank in range(_RANKS):
        four = sum(_card(rank, s) for s in range(_SUITS))
        for card in range(DECK_SIZE):
            if not four >> card & 1:
                yield four | 1 << card


def _build() -> tuple[tuple[Combo, ...], dict[int, int], dict[str, range]]:
    by_kind: dict[str, dict[int, Combo]] = {kind: {} for kind in KINDS}
    for mask in _candidates():
        combo = classify_mask(mask)
        if combo is not None:
            by_kind[combo.kind][mask] = combo
    table: list[Combo] = []
    ranges: dict[str, range] = {}
    for kind in KINDS:
        start = len(table)
        table += sorted(by_kind[kind].values(), key=lambda c: (c.value, c.mask))
        ranges[kind] = range(start, len(table))
    return tuple(table), {c.mask: i for i, c in enumerate(table)}, ranges


_COMBOS, _ID_OF_MASK, _RANGES = _build()

COMBO_COUNT = len(_COMBOS)
"""How many combinations exist (19,939): every id below it is one combination."""
PASS = COMBO_COUNT
"""The id of the pass (过门, R27): one more than the last combination."""
ACTION_COUNT = COMBO_COUNT + 1
"""The size of the action space (19,940)."""
KIND_IDS: Mapping[str, range] = _RANGES
"""Each kind's block of ids, e.g. ``KIND_IDS["pair"] == range(54, 132)``."""


def encode(combo: Combo | None) -> int:
    """The id of a combination (``None``, the pass, is :data:`PASS`)."""
    if combo is None:
        return PASS
    return encode_mask(combo.mask)


def encode_mask(mask: int) -> int:
    """The id of the combination whose cards are ``mask``; ``ValueError`` if they form none (R25)."""
    action = _ID_OF_MASK.get(mask)
    if action is None:
        raise ValueError(f"cards {mask:#x} form no combination (R25), so they have no action id")
    return action


def decode(action: int) -> Combo | None:
    """The combination with this id, or ``None`` for :data:`PASS`; ``ValueError`` outside the space."""
    if not 0 <= action <= PASS or isinstance(action, bool):
        raise ValueError(f"action {action!r} is not an action id: ids are 0..{PASS} ({PASS} = pass)")
    return None if action == PASS else _COMBOS[action]


def encode_play(play: Iterable[str] | None) -> int:
    """The id of a play given as card codes, the way a view and a bot write it (``None``: pass).

    >>> encode_play(None) == PASS, encode_play(["C4", "D4"])
    (True, 54)
    """
    if play is None:
        return PASS
    mask = 0
    for code in play:
        card = CODE_INDEX.get(code)
        if card is None or mask >> card & 1:
            raise ValueError(f"not a play of distinct card codes: {play!r} (R6)")
        mask |= 1 << card
    return encode_mask(mask)


def decode_play(action: int) -> list[str] | None:
    """The bot action (card codes, weakest first; ``None`` to pass) for an id."""
    combo = decode(action)
    return None if combo is None else [str(c) for c in combo.cards]


def legal_actions(game: Game) -> list[int]:
    """The ids of the legal actions of the seat to move, ascending (the pass last, if allowed)."""
    ids = sorted(_ID_OF_MASK[c.mask] for c in game.legal_combos())
    if game.can_pass():
        ids.append(PASS)
    return ids


def legal_actions_of_view(view: Mapping[str, Any]) -> list[int]:
    """:func:`legal_actions` from a seat's view (``game.view(seat)``): what a bot can compute."""
    plays: Sequence[Sequence[str]] = view.get("legal_plays") or ()
    ids = sorted(encode_play(play) for play in plays)
    if view.get("can_pass"):
        ids.append(PASS)
    return ids
