"""The card-location network: from one seat's view, where each unseen card is.

For the seat whose view it reads, the network gives, for every card the seat has not seen (neither
in its own hand nor played, R12), the probability that each of the three other seats holds it — a
softmax over those seats per card, so each unseen card is in exactly one of them; a seat with no
cards left (R31) gets none. Cards in the seat's hand or already played get probability 0 everywhere.
The ♠3 and ♠2 among them decide the hidden partnerships (R10, R11).

Inputs (:func:`encode`) come from the view alone, through :func:`niugui.bots.sampling.knowledge_of`
and :func:`niugui.bots.knowledge.situation_from_view` — its own hand, every seat's count, what each
seat played, what each passed on and who beat whom — so two deals that differ only in the other
seats' hidden cards give the same input. Seats are relative: 0 is the seat itself, 1 the next in
play order (R7), 2 the one across, 3 the one before.

The network is an MLP ``relu(x·W1 + b1) → relu(·W2 + b2) → ·W3 + b3`` giving 54 × 3 logits, to which
the log of each seat's card count is added: with zero weights it is the uniform prior (each unseen
card at a seat in proportion to the cards it holds), and training learns the departures from it.
This module is numpy only; the torch model and its trainer are in :mod:`niugui.learn.location_train`.

>>> from niugui import Game
>>> game = Game.deal(seed=4, first_drawer=0)
>>> seat = game.to_move
>>> probs = located_probs(game.view(seat))   # every card not in the seat's hand is somewhere else
>>> probs.shape, bool(abs(probs.sum() - (54 - game.count(seat))) < 1e-3)
((54, 3), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..bots.knowledge import Situation, Tracker, infer_sides, situation_from_view
from ..bots.sampling import Knowledge, knowledge_of
from ..cards import BLACK_MASK, S2, S3
from ..combos import FIVE, LOOSE_KINDS
from ..game import SEATS, SeatView

DECK = 54
OTHERS = SEATS - 1
GROUPS = (*range(1, len(LOOSE_KINDS) + 1), FIVE)
"""The combination groups a pass can decline (the four loose sizes, R17, and the five-card group, R24)."""
_TOP = {group: (54.0 if group != FIVE else 320.0) for group in GROUPS}
"""A scale above each group's highest value."""
INPUT_SIZE = DECK + SEATS * DECK + 2 * OTHERS + 2 * OTHERS * len(GROUPS) + SEATS * SEATS + OTHERS + 1
"""Own hand, cards played per seat, counts (scaled, and out), declined groups (flag, value),
who beat whom, the expert's partner belief, the share of the deck played."""
OUTPUT_SIZE = DECK * OTHERS
NAMES = ("w1", "b1", "w2", "b2", "w3", "b3")
"""The weight arrays, in order (the torch model's parameters, transposed to ``x @ W``)."""
WEIGHTS = Path(__file__).with_name("weights") / "location.npz"
"""The shipped weights."""
BLACK_CARDS = (int(S3), int(S2))
"""The two cards that decide the sides (R10)."""


@dataclass(frozen=True, slots=True)
class Encoded:
    """One seat's view as network input: the features, which cards are unseen (54 booleans) and
    the log card count of each other seat (−inf for a seat with none)."""

    x: np.ndarray
    unseen: np.ndarray
    log_counts: np.ndarray


def relative(seat: int) -> list[int]:
    """The absolute seats in relative order: the seat itself, then the next in play order, …"""
    return [(seat + r) % SEATS for r in range(SEATS)]


def _bits(mask: int) -> np.ndarray:
    return np.unpackbits(np.frombuffer(mask.to_bytes(7, "little"), dtype=np.uint8),
                         bitorder="little")[:DECK].astype(np.float32)


def encode_parts(info: Knowledge, sit: Situation) -> Encoded:
    """The input from what the seat knows (both made from the same view)."""
    order = relative(info.seat)
    others = order[1:]
    counts = [info.counts[s] for s in others]
    declined = []
    for s in others:
        for group in GROUPS:
            value = sit.declined[s].get(group)
            declined += [0.0, 0.0] if value is None else [1.0, (value + 1) / _TOP[group]]
    overtaken = [min(sit.overtaken[a][b], 20) / 10 for a in order for b in order]
    partner = infer_sides(sit).partner
    x = np.concatenate([
        _bits(info.hand),
        *(_bits(info.played[s]) for s in order),
        np.array([c / 18 for c in counts] + [float(c == 0) for c in counts] + declined + overtaken
                 + [partner[s] for s in others] + [bin(sit.played).count("1") / DECK], dtype=np.float32),
    ])
    with np.errstate(divide="ignore"):
        log_counts: np.ndarray = np.log(np.array(counts, dtype=np.float32))
    return Encoded(x, _bits(info.unknown) > 0, log_counts)


def encode(view: SeatView, tracker: Tracker | None = None) -> Encoded:
    """The input of a seat's view of a game in progress (``ValueError`` if it is not one)."""
    return encode_parts(knowledge_of(view), situation_from_view(view, tracker))


class LocationNetwork:
    """The MLP with fixed weights (float32 arrays named :data:`NAMES`)."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        missing = [name for name in NAMES if name not in weights]
        if missing:
            raise ValueError(f"location weights: missing {', '.join(missing)}")
        self.w1, self.b1, self.w2, self.b2, self.w3, self.b3 = (
            np.asarray(weights[name], dtype=np.float32) for name in NAMES)
        if self.w1.shape[0] != INPUT_SIZE or self.w3.shape[1] != OUTPUT_SIZE:
            raise ValueError(f"location weights: shapes {self.w1.shape}, {self.w3.shape} do not fit "
                             f"{INPUT_SIZE} inputs and {OUTPUT_SIZE} outputs")

    @classmethod
    def load(cls, path: Path | str = WEIGHTS) -> LocationNetwork:
        with np.load(path) as data:
            return cls({name: data[name] for name in data.files})

    def save(self, path: Path | str) -> None:
        np.savez(path, **{name: getattr(self, name) for name in NAMES})

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Raw logits (…, 54, 3) of inputs ``x`` (…, :data:`INPUT_SIZE`), before the count prior."""
        hidden = np.maximum(x @ self.w1 + self.b1, 0.0)
        hidden = np.maximum(hidden @ self.w2 + self.b2, 0.0)
        out: np.ndarray = (hidden @ self.w3 + self.b3).reshape(*x.shape[:-1], DECK, OTHERS)
        return out

    def probs(self, enc: Encoded) -> np.ndarray:
        """(54, 3): per card, each other seat's (relative 1, 2, 3) chance of holding it."""
        return constrain(self.logits(enc.x), enc.unseen, enc.log_counts)


def constrain(logits: np.ndarray, unseen: np.ndarray, log_counts: np.ndarray) -> np.ndarray:
    """Softmax over seats of ``logits + log count`` per card, zero where the card is not unseen."""
    z = logits + log_counts[..., None, :]
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    p: np.ndarray = e / e.sum(axis=-1, keepdims=True) * unseen[..., :, None]
    return p


def uniform_probs(enc: Encoded) -> np.ndarray:
    """The uniform prior: each unseen card at a seat in proportion to its card count."""
    return constrain(np.zeros((DECK, OTHERS), np.float32), enc.unseen, enc.log_counts)


@lru_cache(maxsize=4)
def cached_location(path: str = str(WEIGHTS)) -> LocationNetwork:
    """The network at ``path``, loaded once per process."""
    return LocationNetwork.load(path)


def located_probs(view: SeatView, tracker: Tracker | None = None) -> np.ndarray:
    """The shipped network's (54, 3) probabilities for a seat's view (relative seats 1, 2, 3)."""
    return cached_location().probs(encode(view, tracker))


def absolute(seat: int, probs: np.ndarray) -> np.ndarray:
    """(54, 4): the probabilities by absolute seat (0 for ``seat`` itself)."""
    out = np.zeros((DECK, SEATS), dtype=np.float64)
    for r, s in enumerate(relative(seat)[1:]):
        out[:, s] = probs[:, r]
    return out


def partner_probs(info: Knowledge, holds: np.ndarray) -> list[float]:
    """Each seat's chance of being on ``info.seat``'s side, from (54, 4) absolute card probabilities
    (a played ♠3/♠2 is at the seat that played it, R11), combined as the expert combines its own
    (:func:`niugui.bots.knowledge.infer_sides`): a black seat's partner holds the other black card, a
    red seat's partner holds neither (the two taken as independent); a 双牛鬼 has none."""
    me = info.seat
    mine = (info.hand | info.played[me]) & BLACK_MASK
    if mine == BLACK_MASK:
        return [0.0] * SEATS
    at: list[list[float]] = []
    for card in BLACK_CARDS:
        bit = 1 << card
        known = [1.0 if info.played[s] & bit else 0.0 for s in range(SEATS)]
        at.append(known if sum(known) else [float(holds[card, s]) for s in range(SEATS)])
    if mine:
        other = at[1] if mine == 1 << BLACK_CARDS[0] else at[0]
        return [0.0 if s == me else other[s] for s in range(SEATS)]
    return [0.0 if s == me else (1.0 - at[0][s]) * (1.0 - at[1][s]) for s in range(SEATS)]
