"""The ``search`` bot: determinized Monte Carlo over sampled hidden hands.

For each decision it samples worlds consistent with its view (:mod:`niugui.bots.sampling`), rebuilds
each as a real game, tries each candidate action in it, plays the game out with a fast rollout
policy, and scores the result by its seat's points (R33, R34) plus a small tie-breaker for finishing
early. Candidates are narrowed by successive halving over common sampled worlds (``method="flat"``
gives every candidate the same share instead). It never sees a ``Game`` of the real table: only the
view.

Options (``load_bot("search", seed, **options)``):

- ``budget`` — seconds per decision (default 1.0); the bot aims to answer within it.
- ``iterations`` — a fixed number of sampled worlds instead of a time budget; with ``workers=1``
  and a seed the bot is then deterministic (tests use this).
- ``workers`` — processes sharing the sampled worlds (default 1; the main process is one of them).
  Use 2 when the bot has the machine to itself (terminal game, server); keep 1 in the arena, which
  already runs games in parallel.
- ``method`` — ``"halving"`` (default) or ``"flat"``; ``max_candidates`` — how many actions are
  searched at most (default 16), the rest cut by a cheap prior.

>>> from niugui import Game
>>> game = Game.deal(seed=3, first_drawer=0)
>>> bot = SearchBot(seed=1, iterations=4)
>>> action = bot.choose(game.view(game.to_move))
>>> action in game.view(game.to_move)["legal_plays"]
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

from ..combos import FIVE, Combo, classify_mask
from ..game import BLACK_MASK, SEATS, Game
from .base import Action, Bot, View
from .sampling import Knowledge, knowledge_of, reconstruct, sample_hands

Candidate = Combo | None
"""A play, or ``None`` for a pass."""
RolloutPolicy = Callable[[Game, int, list[int]], Candidate]
"""(game, seat of the play to beat or -1, black seats) → the action of the seat to move."""

TIE_BREAK = 0.05
"""Weight of finishing early against the game's points (R33/R34 points differ by at least 1)."""
HIGH_CARD = 44
"""Cards from the As up (A, 2, 3, jokers) count as control cards for the greedy policy."""


# ---- the rollout policy ----------------------------------------------------------------------------


def _breaks(combo: Combo, hand: int) -> int:
    """How many ranks of ``hand`` the combination splits (uses some but not all of that rank)."""
    broken = 0
    mask = combo.mask & ((1 << 52) - 1)
    while mask:
        rank = (mask & -mask).bit_length() - 1 >> 2
        used = combo.mask >> (4 * rank) & 15
        if (hand >> (4 * rank) & 15) != used:
            broken += 1
        mask &= ~(15 << (4 * rank))
    return broken


def greedy_policy(game: Game, last_seat: int, black: list[int]) -> Candidate:
    """A fast, plain policy for rollouts, with the sides of the sampled world known.

    Goes out when it can; leads the largest combination holding its weakest card; lets a partner's
    play stand; otherwise beats with the weakest play that splits the fewest ranks, and keeps its
    control cards (A and up) for when an opponent is close to going out.
    """
    seat = game.to_move
    assert seat is not None
    hand = game.hand_mask(seat)
    moves = game.legal_combos()
    for move in moves:
        if move.mask == hand:
            return move
    current = game.current
    if current is None:
        low = hand & -hand
        return max((m for m in moves if m.mask & low), key=lambda m: (m.mask.bit_count(), -m.value))
    if not moves:
        return None
    mine = seat in black
    if (last_seat in black) == mine and (len(black) == 2 or not mine):
        return None  # a partner's play: let it stand
    best = min(moves, key=lambda m: (_breaks(m, hand), m.value))
    if current.group != FIVE and (best.mask >> HIGH_CARD):
        threat = min((game.count(s) for s in range(SEATS) if game.count(s) and (s in black) != mine),
                     default=0)
        if threat > 3:
            return None
    return best


def rollout(game: Game, last_seat: int, black: list[int], policy: RolloutPolicy) -> None:
    """Play ``game`` to its end with ``policy`` for every seat."""
    while game.to_move is not None:
        seat = game.to_move
        action = policy(game, last_seat, black)
        if action is None:
            game.pass_turn()
        else:
            game.play(action)
            last_seat = seat


def value_for(game: Game, seat: int) -> float:
    """The seat's points in a finished game (R33, R34), plus a small bonus for going out early."""
    result = game.result
    assert result is not None
    place = result.finish.index(seat) if seat in result.finish else 3
    return result.scores[seat] + TIE_BREAK * (3 - place) / 3


# ---- candidates ------------------------------------------------------------------------------------


def candidates_of(game: Game, last_seat: int, black: list[int], limit: int) -> list[Candidate]:
    """The actions worth searching: the rollout policy's own choice first, then pass, then plays by
    a cheap prior (split fewest ranks, shed most cards on a lead, weakest first), at most ``limit``."""
    seat = game.to_move
    assert seat is not None
    hand = game.hand_mask(seat)
    moves = game.legal_combos()
    lead = game.current is None
    moves.sort(key=lambda m: (_breaks(m, hand), -m.mask.bit_count() if lead else 0, m.value))
    out: list[Candidate] = [greedy_policy(game, last_seat, black)]
    if game.can_pass() and out[0] is not None:
        out.append(None)
    for move in moves:
        if len(out) >= limit:
            break
        if move not in out:
            out.append(move)
    return out


# ---- evaluation (runs in the main process and in workers) ------------------------------------------


def _black_of(info: Knowledge, hands: list[int]) -> list[int]:
    return [s for s in range(SEATS) if (hands[s] | info.played[s]) & BLACK_MASK]


def evaluate(
    info: Knowledge,
    last_seat: int,
    masks: list[int],
    worlds: int,
    seconds: float,
    seed: int,
) -> tuple[list[float], int]:
    """Roll out every candidate (card masks, 0 = pass) on sampled worlds: ``worlds`` of them, or as
    many as fit in ``seconds`` when ``worlds`` is 0. Returns each candidate's total value and the
    number of worlds."""
    rng = random.Random(seed)
    deadline = time.perf_counter() + seconds
    totals = [0.0] * len(masks)
    combos = [classify_mask(mask) if mask else None for mask in masks]
    done = 0
    while (done < worlds) if worlds else (done == 0 or time.perf_counter() < deadline):
        hands = sample_hands(info, rng)
        world = reconstruct(info, hands)
        black = _black_of(info, hands)
        for index, combo in enumerate(combos):
            game = world.copy()
            if combo is not None:
                game.play(combo)
                rollout(game, info.seat, black, greedy_policy)
            else:
                game.pass_turn()
                rollout(game, last_seat, black, greedy_policy)
            totals[index] += value_for(game, info.seat)
        done += 1
    return totals, done


# ---- the bot ---------------------------------------------------------------------------------------


class SearchBot(Bot):
    """Determinized Monte Carlo search over the view's hidden hands (see the module docstring)."""

    name = "search"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed, **options)
        unknown = set(options) - {"budget", "iterations", "workers", "method", "max_candidates"}
        if unknown:
            raise ValueError(f"search bot: unknown option(s) {', '.join(sorted(unknown))}")
        self.budget = float(options.get("budget", 1.0))
        self.iterations = int(options.get("iterations", 0))
        self.workers = int(options.get("workers", 1))
        self.method = str(options.get("method", "halving"))
        self.max_candidates = int(options.get("max_candidates", 16))
        if self.budget <= 0 or self.iterations < 0 or self.workers < 1 or self.max_candidates < 2:
            raise ValueError("search bot: budget > 0, iterations >= 0, workers >= 1, max_candidates >= 2")
        if self.method not in ("halving", "flat"):
            raise ValueError(f"search bot: method must be 'halving' or 'flat', not {self.method!r}")
        self._pool: ProcessPoolExecutor | None = None
        self.last_worlds = 0
        """How many worlds the last decision sampled (for measurements)."""

    def choose(self, view: View) -> Action:
        started = time.perf_counter()
        self.last_worlds = 0
        legal = view["legal_plays"]
        hand = set(view["hand"])
        for play in legal:
            if len(play) == len(hand):
                return list(play)  # going out ends the question
        if len(legal) + bool(view["can_pass"]) == 1:
            return list(legal[0]) if legal else None
        info = knowledge_of(view)
        current = view["current"]
        last_seat = current["seat"] if current else -1
        # The candidates come from one sampled world: they depend only on the seat's own hand and
        # the play to beat, which every world shares; the rollout policy's choice differs only by
        # the sampled sides, so it is taken from this world too.
        seed = self.rng.getrandbits(64)
        probe_hands = sample_hands(info, random.Random(seed))
        probe = reconstruct(info, probe_hands)
        candidates = candidates_of(probe, last_seat, _black_of(info, probe_hands), self.max_candidates)
        if len(candidates) == 1:
            return _action(candidates[0])
        masks = [0 if c is None else c.mask for c in candidates]
        best = self._search(info, last_seat, masks, seed, started)
        return _action(candidates[best])

    def _search(self, info: Knowledge, last_seat: int, masks: list[int], seed: int, started: float) -> int:
        """Successive halving (or flat) over candidates; returns the index of the best mean."""
        alive = list(range(len(masks)))
        totals = [0.0] * len(masks)
        counts = [0] * len(masks)
        phases = 1 if self.method == "flat" else max(1, math.ceil(math.log2(len(masks))))
        end = started + self.budget * 0.85
        self.last_worlds = 0
        for phase in range(phases):
            if self.iterations:
                worlds, seconds = max(1, self.iterations // phases), 0.0
            else:
                worlds, seconds = 0, max(0.0, (end - time.perf_counter()) / (phases - phase))
            sums, n = self._evaluate(info, last_seat, [masks[i] for i in alive], worlds, seconds,
                                     seed + 7919 * phase)
            self.last_worlds += n
            for i, total in zip(alive, sums, strict=True):
                totals[i] += total
                counts[i] += n
            alive.sort(key=lambda i: -totals[i] / counts[i])  # stable: ties keep the prior's order
            if phase < phases - 1:
                alive = sorted(alive[: max(2, math.ceil(len(alive) / 2))])
        return alive[0]

    def _evaluate(self, info: Knowledge, last_seat: int, masks: list[int], worlds: int, seconds: float,
                  seed: int) -> tuple[list[float], int]:
        if self.workers == 1:
            return evaluate(info, last_seat, masks, worlds, seconds, seed)
        pool = self._get_pool()
        share = -(-worlds // self.workers) if worlds else 0
        futures: list[Future[tuple[list[float], int]]] = [
            pool.submit(evaluate, info, last_seat, masks, share, seconds, seed + k)
            for k in range(1, self.workers)
        ]
        sums, n = evaluate(info, last_seat, masks, share, seconds, seed)
        for future in futures:
            more, m = future.result()
            sums = [a + b for a, b in zip(sums, more, strict=True)]
            n += m
        return sums, n

    def _get_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers - 1, mp_context=get_context("forkserver"))
            for future in [self._pool.submit(int) for _ in range(self.workers - 1)]:
                future.result()  # start the workers now, not inside the first timed decision
        return self._pool

    def close(self) -> None:
        """Stop the worker processes, if any."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


def _action(candidate: Candidate) -> Action:
    return None if candidate is None else [str(c) for c in candidate.cards]
