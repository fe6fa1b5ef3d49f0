"""What the ``learned`` network sees: a seat's situation and each candidate action, as numbers.

Everything here is read from a :class:`~niugui.bots.knowledge.Situation`, which holds only what the
seat may know — its own hand and the public history (R11, R12) — so the network's input cannot
depend on another seat's hidden cards (``tests/bots/test_learned.py`` checks it on two deals that
differ only there). Seats are relative: 0 is the seat itself, 1 the next in play order (R7), 2 the
one across, 3 the one before.

The features are summaries a player weighs — card counts (and who is down to 1–4 cards), the
♠3/♠2 marks, the expert's belief about partners, the play to beat, the hand's split into plays
before and after the action (:mod:`niugui.bots.hand_split`), whether the action can be beaten by
unseen cards (:mod:`niugui.bots.power`) — not the cards themselves: with a few hundred thousand
noisy targets, a first version that also had every card as a bit (hand, unseen, the play to beat,
the action: 270 more inputs) fitted the noise, its held-out loss rising after 1,000 steps.

The candidates are those the ``search`` bot weighs: the expert's own choice first, then the pass,
then plays by the cheap prior of :func:`niugui.bots.search.prior_candidates` (fewest ranks broken,
most cards shed on a lead, weakest first), at most :data:`CANDIDATES`.
"""

from __future__ import annotations

import numpy as np

from ..bots.hand_split import split_cost
from ..bots.knowledge import Situation, infer_sides
from ..bots.power import beatable, lowness
from ..cards import FULL_MASK
from ..combos import KINDS, Combo
from ..game import SEATS

CANDIDATES = 10
"""At most this many actions are scored per decision (the expert's choice among them)."""
STATE_SIZE = 4 + 12 + 8 + 3 + 4 + len(KINDS) + 4 + 4
ACTION_SIZE = 1 + len(KINDS) + 9
_KIND = {kind: i for i, kind in enumerate(KINDS)}
_S3, _S2 = 51, 47


def encode_state(sit: Situation) -> np.ndarray:
    """The situation as :data:`STATE_SIZE` numbers (relative seats, see the module docstring)."""
    me = sit.seat
    order = [(me + r) % SEATS for r in range(SEATS)]
    counts = [sit.counts[s] for s in order]
    small = [float(counts[r] == n) for r in range(1, SEATS) for n in (1, 2, 3, 4)]
    marks = [float(bool(sit.marks[s] >> card & 1)) for s in order for card in (_S3, _S2)]
    sides = infer_sides(sit)
    partner = [sides.partner[s] for s in order[1:]]
    double = [float(sides.double), *(float(sides.double_seat == s) for s in order[1:])]
    current = np.zeros(len(KINDS) + 4, dtype=np.float32)
    if sit.current is not None:
        current[_KIND[sit.current.kind]] = 1.0
        current[len(KINDS) + (sit.current_seat - me) % SEATS] = 1.0
    plays, cost = split_cost(sit.hand)
    extra = [float(sit.opening), sit.played.bit_count() / 54, plays / 10, cost / 100]
    return np.concatenate([
        np.array([c / 14 for c in counts] + small + marks + partner + double, dtype=np.float32),
        current, np.array(extra, dtype=np.float32),
    ])


def encode_actions(sit: Situation, actions: list[Combo | None]) -> np.ndarray:
    """One row of :data:`ACTION_SIZE` numbers per action; row 0 is the expert's choice."""
    out = np.zeros((len(actions), ACTION_SIZE), dtype=np.float32)
    hand = sit.hand
    unseen = FULL_MASK ^ hand ^ sit.played
    plays0, cost0 = split_cost(hand)
    for i, action in enumerate(actions):
        row = out[i]
        if action is None:
            row[0] = 1.0
            left, plays, cost, low, control, size = hand.bit_count(), plays0, cost0, 0, 0.0, 0
        else:
            row[1 + _KIND[action.kind]] = 1.0
            rest = hand ^ action.mask
            left = rest.bit_count()
            plays, cost = split_cost(rest) if rest else (0, 0)
            low, control, size = lowness(action), float(not beatable(action, unseen)), action.size
        tail = 1 + len(KINDS)
        row[tail:] = (
            float(i == 0), left / 14, float(left == 0), (plays - plays0) / 3, (cost - cost0) / 30,
            plays / 10, low / 12, control, size / 5,
        )
    return out
