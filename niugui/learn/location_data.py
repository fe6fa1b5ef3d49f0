"""Where the cards really were: positions of self-play for the card-location network, and its
measurement against the expert's own inference and the uniform prior (numpy only).

Games are the arena's (:func:`niugui.arena.play_game`, duplicate seating 0, deal seeds
``SEED/deal``) between two bot specs — ``expert`` against itself by default. Each finished game is
replayed from its deal; at each decision the view of the seat to move (and, with ``all_seats``, of
every seat still holding cards) is encoded (:func:`~niugui.learn.location_features.encode`), and
the truth — which other seat held each unseen card — is read from the game, for the target only.

>>> from niugui.learn.location_features import INPUT_SIZE
>>> batch = positions(["expert", "expert"], seed=7, deals=range(1))
>>> batch.x.shape[1] == INPUT_SIZE and batch.target.shape[1] == DECK
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..arena import play_game
from ..bots.knowledge import Tracker, _black_shares, infer_sides, situation_from_view
from ..bots.sampling import knowledge_of
from ..cards import BLACK_MASK, cards_of
from ..game import SEATS, Game
from .location_features import (
    BLACK_CARDS,
    DECK,
    OTHERS,
    LocationNetwork,
    absolute,
    constrain,
    encode_parts,
    partner_probs,
    relative,
)


@dataclass(slots=True)
class Batch:
    """Positions: inputs ``x`` (N, INPUT_SIZE), ``unseen`` (N, 54), ``log_counts`` (N, 3), ``target``
    (N, 54: the relative seat 0–2 among the others holding each unseen card, −1 for the rest), and for
    the measurement the expert's chance of each other seat holding ♠3, ♠2 (``expert_black``, N×2×3),
    its partner belief (``expert_partner``, N×3), the truth of sides (``partner``, N×3) and the
    black cards the seat had seen played or held (``black_seen``, N×2 booleans)."""

    x: np.ndarray
    unseen: np.ndarray
    log_counts: np.ndarray
    target: np.ndarray
    expert_black: np.ndarray = field(default_factory=lambda: np.zeros((0, 2, OTHERS), np.float32))
    expert_partner: np.ndarray = field(default_factory=lambda: np.zeros((0, OTHERS), np.float32))
    partner: np.ndarray = field(default_factory=lambda: np.zeros((0, OTHERS), np.float32))
    played: list[tuple[int, ...]] = field(default_factory=list)
    """Per position the seat and what each seat has played, absolute (for the partner measure)."""

    def __len__(self) -> int:
        return int(self.x.shape[0])


def _expert_black(sit_seat: int, sit: object, info_hand: int, played: tuple[int, ...]) -> np.ndarray:
    """The expert's chance that each other seat (relative) holds ♠3, ♠2 (1 where it was played)."""
    from ..bots.knowledge import Situation

    assert isinstance(sit, Situation)
    mine = (info_hand | played[sit_seat]) & BLACK_MASK
    shares = _black_shares(sit, mine)
    out = np.zeros((2, OTHERS), np.float32)
    for k, card in enumerate(BLACK_CARDS):
        bit = 1 << card
        known = [bool(played[s] & bit) for s in range(SEATS)]
        for r, s in enumerate(relative(sit_seat)[1:]):
            out[k, r] = float(known[s]) if any(known) or info_hand & bit else shares[s]
    return out


def game_positions(specs: Sequence[str], seed: int, deal: int, all_seats: bool = False) -> Batch:
    """The positions of one arena game (see the module docstring)."""
    report = play_game(specs, seed, deal, 0)
    final = Game.from_record(report.record)
    black = final.black
    game = Game.from_hands([final.dealt(s) for s in range(SEATS)], final.first_drawer)
    tracker = Tracker(game.first_drawer)
    rows: dict[str, list[np.ndarray]] = {k: [] for k in ("x", "unseen", "lc", "t", "eb", "ep", "p")}
    played: list[tuple[int, ...]] = []
    for _seat, action, mask, _ in final.action_log():
        mover = game.to_move
        assert mover is not None
        seats = [s for s in range(SEATS) if game.count(s)] if all_seats else [mover]
        for seat in seats:
            view = game.view(seat)
            info = knowledge_of(view)
            sit = situation_from_view(view, tracker)
            enc = encode_parts(info, sit)
            holder = np.full(DECK, -1, np.int8)
            for r, s in enumerate(relative(seat)[1:]):
                hand = game.hand_mask(s)
                for card in range(DECK):
                    if hand >> card & 1:
                        holder[card] = r
            rows["x"].append(enc.x)
            rows["unseen"].append(enc.unseen)
            rows["lc"].append(enc.log_counts)
            rows["t"].append(holder)
            rows["eb"].append(_expert_black(seat, sit, info.hand, info.played))
            sides = infer_sides(sit).partner
            others = relative(seat)[1:]
            rows["ep"].append(np.array([sides[s] for s in others], np.float32))
            rows["p"].append(np.array([float((s in black) == (seat in black)) for s in others], np.float32))
            played.append((seat, *info.played))
        if action == "play":
            game.play(cards_of(mask), mover)
        else:
            game.pass_turn(mover)
    return Batch(np.array(rows["x"], np.float32), np.array(rows["unseen"], bool),
                 np.array(rows["lc"], np.float32), np.array(rows["t"], np.int8), np.array(rows["eb"]),
                 np.array(rows["ep"]), np.array(rows["p"]), played)


ARRAYS = ("x", "unseen", "log_counts", "target", "expert_black", "expert_partner", "partner")


def join(batches: list[Batch]) -> Batch:
    """The positions of several batches, in order."""
    arrays = {name: np.concatenate([getattr(b, name) for b in batches]) for name in ARRAYS}
    return Batch(**arrays, played=[p for b in batches for p in b.played])


def _chunk(specs: Sequence[str], seed: int, deals: list[int], all_seats: bool) -> Batch:
    return join([game_positions(specs, seed, d, all_seats) for d in deals])


def positions(specs: Sequence[str], seed: int, deals: Iterable[int], all_seats: bool = False,
              workers: int = 1) -> Batch:
    """The positions of the games ``deals`` of a run (``workers`` processes)."""
    deals = list(deals)
    if workers <= 1:
        return _chunk(specs, seed, deals, all_seats)
    chunks = [deals[i::workers * 4] for i in range(workers * 4)]
    with ProcessPoolExecutor(workers) as pool:
        return join(list(pool.map(_chunk, [specs] * len(chunks), [seed] * len(chunks), chunks,
                                  [all_seats] * len(chunks))))


# ---- measurement ----------------------------------------------------------------------------------

EPS = 1e-6


def _scores(p_true: np.ndarray, p_best_is_true: np.ndarray) -> tuple[float, float, int]:
    """Mean log-loss, accuracy and count, from the probability given to the truth and whether the
    most likely answer was the truth."""
    if p_true.size == 0:
        return float("nan"), float("nan"), 0
    return float(-np.log(np.clip(p_true, EPS, 1.0)).mean()), float(p_best_is_true.mean()), int(p_true.size)


def card_scores(probs: np.ndarray, batch: Batch,
                cards: Sequence[int] | None = None) -> tuple[float, float, int]:
    """Log-loss and accuracy of (N, 54, 3) probabilities on the unseen cards (or those of ``cards``)."""
    mask = batch.unseen.copy()
    if cards is not None:
        keep = np.zeros(DECK, bool)
        keep[list(cards)] = True
        mask &= keep[None, :]
    n, c = np.nonzero(mask)
    t = batch.target[n, c].astype(np.int64)
    p = probs[n, c]
    return _scores(p[np.arange(len(t)), t], p.argmax(axis=1) == t)


def black_scores(expert: np.ndarray, batch: Batch, k: int) -> tuple[float, float, int]:
    """The expert's log-loss and accuracy on black card ``k`` (0 = ♠3, 1 = ♠2) where it is unseen."""
    card = BLACK_CARDS[k]
    n = np.nonzero(batch.unseen[:, card])[0]
    t = batch.target[n, card].astype(np.int64)
    p = expert[n, k]
    p = p / np.maximum(p.sum(axis=1, keepdims=True), EPS)
    return _scores(p[np.arange(len(t)), t], p.argmax(axis=1) == t)


def undecided(batch: Batch) -> np.ndarray:
    """Positions where some black card is unseen (the seat cannot be sure of its sides from marks)."""
    return np.asarray(batch.unseen[:, BLACK_CARDS[0]] | batch.unseen[:, BLACK_CARDS[1]])


def partner_scores(partner: np.ndarray, batch: Batch) -> tuple[float, float, int]:
    """Binary log-loss and accuracy of (N, 3) 'on my side' probabilities, on undecided positions."""
    rows = undecided(batch)
    p = np.clip(partner[rows], 0.0, 1.0)
    truth = batch.partner[rows] > 0.5
    p_true = np.where(truth, p, 1.0 - p)
    return _scores(p_true.ravel(), ((p > 0.5) == truth).ravel())


def partners_from(probs: np.ndarray, batch: Batch) -> np.ndarray:
    """(N, 3) partner probabilities from card probabilities, combined as the expert combines its own."""
    out = np.zeros((len(batch), OTHERS), np.float32)
    for i, (seat, *played) in enumerate(batch.played):
        from ..bots.sampling import Knowledge

        hand = int(sum(1 << c for c in range(DECK) if batch.x[i, c] > 0.5))
        info = Knowledge(seat, 0, hand, (0,) * SEATS, tuple(played), 0, ())
        probs_abs = absolute(seat, probs[i])
        partner = partner_probs(info, probs_abs)
        out[i] = [partner[s] for s in relative(seat)[1:]]
    return out


def measure(net: LocationNetwork | None, batch: Batch) -> dict[str, dict[str, list[float]]]:
    """Log-loss, accuracy and count of the network (if given), the expert and the uniform prior:
    on every unseen card, on ♠3 and on ♠2 where unseen, and on partner identity where undecided."""
    uniform = constrain(np.zeros((len(batch), DECK, OTHERS), np.float32), batch.unseen, batch.log_counts)
    out: dict[str, dict[str, list[float]]] = {}
    sources: list[tuple[str, np.ndarray]] = [("uniform", uniform)]
    if net is not None:
        sources.append(("network", constrain(net.logits(batch.x), batch.unseen, batch.log_counts)))
    for name, probs in sources:
        out[name] = {
            "all unseen cards": list(card_scores(probs, batch)),
            "♠3": list(card_scores(probs, batch, [BLACK_CARDS[0]])),
            "♠2": list(card_scores(probs, batch, [BLACK_CARDS[1]])),
            "partner": list(partner_scores(partners_from(probs, batch), batch)),
        }
    out["expert"] = {
        "♠3": list(black_scores(batch.expert_black, batch, 0)),
        "♠2": list(black_scores(batch.expert_black, batch, 1)),
        "partner": list(partner_scores(batch.expert_partner, batch)),
    }
    return out
