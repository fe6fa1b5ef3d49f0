"""The observation encoding: a seat's view (``game.view(seat)``) as a flat 0/1 vector and an action mask.

Built from the view alone — the seat's own hand and what is public (R11, R12) — so nothing hidden can
reach a model. Seats are relative: block ``i`` of a per-seat feature is the seat ``i`` places after
the observer in play order (0 = the observer, 1 = the next to play, 2 = across, 3 = the previous).
Cards are indexed by strength (R5: ♦4 = 0 … ♠3 = 51, 小王 52, 大王 53). The layout is
:data:`LAYOUT`; docs/env.md lists it.

>>> from niugui import Game
>>> game = Game.deal(seed=7, first_drawer=0)
>>> observation, mask = encode_view(game.view(2))
>>> observation.shape, int(observation[block("hand")].sum()), int(mask.sum()) == len(game.legal_combos())
((695,), 13, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..cards import CODE_INDEX, DECK_SIZE
from ..combos import KINDS
from .actions import ACTION_COUNT, PASS, encode_play

SEATS = 4
MAX_CARDS = 14
"""The most cards a seat holds (R9)."""

_BLOCKS: tuple[tuple[str, int, str], ...] = (
    ("hand", DECK_SIZE, "the observer's cards"),
    ("unseen", DECK_SIZE, "cards neither in the observer's hand nor played: what the others hold together"),
    ("played", SEATS * DECK_SIZE, "per relative seat, every card it has played this game"),
    ("current", DECK_SIZE, "the cards of the play to beat (all 0 on a free lead)"),
    ("current_kind", len(KINDS), "its kind, one-hot in KINDS order (single … straight_flush)"),
    ("current_seat", SEATS, "the relative seat that played it, one-hot"),
    ("trick_last", SEATS * (DECK_SIZE + 1), "per relative seat, its last action in this trick: "
     "54 cards of its play, then 1 if it was a pass (all 0 if it has not acted in this trick)"),
    ("counts", SEATS * (MAX_CARDS + 1), "per relative seat, its number of cards left, one-hot 0..14"),
    ("finish", SEATS * SEATS, "per relative seat, one-hot: still holding, 上游, 二游, 三游 (R30)"),
    ("first_drawer", SEATS, "the relative seat that drew first, one-hot (R9: it and the seat before it in "
     "play order were dealt 14)"),
    ("to_move", SEATS, "the relative seat to move, one-hot (all 0 once the game is over)"),
)


def _layout() -> dict[str, slice]:
    out, start = {}, 0
    for name, size, _ in _BLOCKS:
        out[name] = slice(start, start + size)
        start += size
    return out


LAYOUT: Mapping[str, slice] = _layout()
"""Each block's slice of the observation vector, in order."""
DESCRIPTIONS: Mapping[str, str] = {name: text for name, _, text in _BLOCKS}
OBSERVATION_SIZE = sum(size for _, size, _ in _BLOCKS)
"""The length of the observation vector (695)."""

_START = {name: part.start for name, part in LAYOUT.items()}
_KIND_INDEX = {kind: i for i, kind in enumerate(KINDS)}


def block(name: str) -> slice:
    """The slice of the observation vector that holds block ``name`` (see :data:`LAYOUT`)."""
    return LAYOUT[name]


def _set_cards(out: NDArray[np.int8], start: int, codes: Sequence[str]) -> int:
    """Set the bits of ``codes`` at ``start``; return their mask."""
    mask = 0
    for code in codes:
        card: int = CODE_INDEX[code]
        out[start + card] = 1
        mask |= 1 << card
    return mask


def encode_observation(view: Mapping[str, Any]) -> NDArray[np.int8]:
    """The observation vector of a seat's view (``game.view(seat)`` with its history)."""
    if not isinstance(view["seat"], int) or "history" not in view:
        raise ValueError("encode_observation needs a seat's view with its history: game.view(seat)")
    seat: int = view["seat"]
    out = np.zeros(OBSERVATION_SIZE, dtype=np.int8)
    start = _START

    def rel(other: int) -> int:
        return (other - seat) % SEATS

    known = _set_cards(out, start["hand"], view["hand"])
    for action in view["history"]:
        if "play" in action:
            known |= _set_cards(out, start["played"] + rel(action["seat"]) * DECK_SIZE, action["play"])
    unseen = ((1 << DECK_SIZE) - 1) & ~known
    for card in range(DECK_SIZE):
        if unseen >> card & 1:
            out[start["unseen"] + card] = 1
    current = view["current"]
    if current is not None:
        _set_cards(out, start["current"], current["play"])
        out[start["current_kind"] + _KIND_INDEX[current["kind"]]] = 1
        out[start["current_seat"] + rel(current["seat"])] = 1
    last: dict[int, Mapping[str, Any]] = {}
    for action in view["trick"]:
        last[rel(action["seat"])] = action
    for other, action in last.items():
        base = start["trick_last"] + other * (DECK_SIZE + 1)
        if "play" in action:
            _set_cards(out, base, action["play"])
        else:
            out[base + DECK_SIZE] = 1
    for other, count in enumerate(view["counts"]):
        out[start["counts"] + rel(other) * (MAX_CARDS + 1) + count] = 1
    places = {s: place + 1 for place, s in enumerate(view["finish"])}
    for other in range(SEATS):
        out[start["finish"] + rel(other) * SEATS + places.get(other, 0)] = 1
    out[start["first_drawer"] + rel(view["first_drawer"])] = 1
    if view["to_move"] is not None:
        out[start["to_move"] + rel(view["to_move"])] = 1
    return out


def encode_mask(view: Mapping[str, Any]) -> NDArray[np.int8]:
    """The action mask of a seat's view: 1 at the id of each legal play and at PASS if it may pass.

    All 0 when it is not the seat's turn (or the game is over).
    """
    mask = np.zeros(ACTION_COUNT, dtype=np.int8)
    for play in view.get("legal_plays") or ():
        mask[encode_play(play)] = 1
    if view.get("can_pass"):
        mask[PASS] = 1
    return mask


def encode_view(view: Mapping[str, Any]) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
    """``(observation, action_mask)`` of a seat's view."""
    return encode_observation(view), encode_mask(view)
