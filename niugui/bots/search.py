"""The ``search`` bot: determinized Monte Carlo over sampled hidden hands.

For each decision it samples worlds consistent with its view (:mod:`niugui.bots.sampling`), rebuilds
each as a real game, tries each candidate action in it, plays the game out with a rollout policy
(by default the ``expert`` policy without its race search, which reads only what each seat may
know), and scores the result by its seat's points (R33, R34) plus a small tie-breaker for going out
early. All candidates of a world share that world (common random numbers), and each is measured by
its gain over candidate 0, the ``expert`` bot's own choice: successive halving drops the weaker
half of the others phase by phase, and the best survivor is played only when its mean gain exceeds
``confidence`` standard errors — otherwise the expert's choice stands. The bot never sees a
``Game`` of the real table.

Options (``load_bot("search", seed, **options)``):

- ``budget`` — seconds per decision (default 1.0); the bot aims to answer within it.
- ``iterations`` — a fixed number of sampled worlds instead of a time budget; with ``workers=1``
  and a seed the bot is then deterministic (tests use this).
- ``workers`` — processes sharing the sampled worlds (default 1; the main process is one of them,
  the others come from a pool shared by all search bots of the process, see :func:`shutdown_pools`).
  Use 2 when the bot has the machine to itself (terminal game); keep 1 in the arena, which already
  runs games in parallel, and on a busy server.
- ``method`` — ``"halving"`` (default) or ``"flat"`` (every candidate on every world);
  ``max_candidates`` — how many actions are searched at most (default 10; the rest are cut by a
  cheap prior); ``rollout`` — ``"fast"`` (default: the expert policy without its race search),
  ``"expert"`` (the whole expert policy) or ``"greedy"`` (several times faster, weaker);
  ``confidence`` — standard errors of gain needed to overrule the expert's choice (default 1.0).
- ``belief`` — belief-weighted determinization (:mod:`niugui.bots.belief`): each sampled world
  weighs ``belief`` to the power of the other seats' plays in it that the expert would not have
  made; 1.0 (the default) samples uniformly, as before.
- ``prior`` — ``"cheap"`` (default: the prior of :func:`candidates_of`) or ``"learned"``: twice
  ``max_candidates`` plays by the cheap prior are scored by the ``learned`` bot's network
  (:func:`niugui.learn.model.cached_network`) and the best ``max_candidates`` of them (the expert's
  choice always among them) are searched.
- ``worlds`` — how the hidden hands of a world are drawn (:data:`WORLDS`): ``"uniform"`` (the
  default: every deal of the unseen cards consistent with the counts alike) or ``"located"``
  (belief-weighted determinization: each unseen card drawn with the card-location network's chances,
  :mod:`niugui.learn.location_features`, computed once per decision from the seat's view).

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
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from multiprocessing import get_context
from typing import Any

from ..cards import BLACK_MASK
from ..combos import FIVE, Combo, classify_mask
from ..game import SEATS, Game
from .base import Action, Bot, View, log
from .belief import weigh
from .expert import DEFAULT, FAST, expert_combo
from .knowledge import Tracker
from .sampling import Knowledge, history_plays, knowledge_of, reconstruct, sample_hands, sample_located

Candidate = Combo | None
"""A play, or ``None`` for a pass."""
Sampler = Callable[[Knowledge, random.Random], list[int]]
"""(what the seat knows, a generator) → one world's hands (see :mod:`niugui.bots.sampling`)."""
RolloutPolicy = Callable[[Game, list[int], Tracker], Candidate]
"""(game, black seats, the rollout's tracker of the public history) → the action of the seat to move."""

TIE_BREAK = 0.05
"""Weight of finishing early against the game's points (R33/R34 points differ by at least 1)."""
HIGH_CARD = 44
"""Cards from the As up (A, 2, 3, jokers) count as control cards for the greedy policy."""


# ---- the rollout policy ----------------------------------------------------------------------------


def breaks(combo: Combo, hand: int) -> int:
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


def greedy_policy(game: Game, black: list[int], tracker: Tracker | None = None) -> Candidate:
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
    if (game.current_seat in black) == mine and (len(black) == 2 or not mine):
        return None  # a partner's play: let it stand
    best = min(moves, key=lambda m: (breaks(m, hand), m.value))
    if current.group != FIVE and (best.mask >> HIGH_CARD):
        threat = min((game.count(s) for s in range(SEATS) if game.count(s) and (s in black) != mine),
                     default=0)
        if threat > 3:
            return None
    return best


def rollout(game: Game, black: list[int], policy: RolloutPolicy, tracker: Tracker | None = None) -> None:
    """Play ``game`` to its end with ``policy`` for every seat; ``tracker``, if given, has read the
    history up to some earlier point of this game (all seats share it: the history is public)."""
    if tracker is None:
        tracker = Tracker(game.first_drawer)
    while game.to_move is not None:
        action = policy(game, black, tracker)
        if action is None:
            game.pass_turn()
        else:
            game.play(action)


def value_for(game: Game, seat: int) -> float:
    """The seat's points in a finished game (R33, R34), plus a small bonus for going out early."""
    result = game.result
    assert result is not None
    place = result.finish.index(seat) if seat in result.finish else 3
    return result.scores[seat] + TIE_BREAK * (3 - place) / 3


# ---- candidates ------------------------------------------------------------------------------------


def prior_candidates(hand: int, legal: list[Combo], lead: bool, can_pass: bool, first: Candidate,
                     limit: int) -> list[Candidate]:
    """The actions worth searching, by a cheap prior: ``first`` (the rollout policy's own choice),
    then pass, then the ``legal`` plays that split the fewest ranks of ``hand``, shed the most cards
    on a ``lead``, weakest first — at most ``limit``. A pure function of what the seat knows (the
    ``learned`` bot's features use the same candidates)."""
    moves = sorted(legal, key=lambda m: (breaks(m, hand), -m.mask.bit_count() if lead else 0, m.value))
    out: list[Candidate] = [first]
    if can_pass and first is not None:
        out.append(None)
    for move in moves:
        if len(out) >= limit:
            break
        if move not in out:
            out.append(move)
    return out


def candidates_of(game: Game, first: Candidate, limit: int) -> list[Candidate]:
    """:func:`prior_candidates` for the seat to move in ``game``."""
    seat = game.to_move
    assert seat is not None
    return prior_candidates(game.hand_mask(seat), game.legal_combos(), game.current is None, game.can_pass(),
                            first, limit)


# ---- evaluation (runs in the main process and in workers) ------------------------------------------


def _expert_policy(game: Game, black: list[int], tracker: Tracker) -> Candidate:
    return expert_combo(game, DEFAULT, tracker)


def _fast_expert_policy(game: Game, black: list[int], tracker: Tracker) -> Candidate:
    return expert_combo(game, FAST, tracker)


POLICIES: dict[str, RolloutPolicy] = {
    "fast": _fast_expert_policy,
    "expert": _expert_policy,
    "greedy": greedy_policy,
}
"""Rollout policies by name: ``fast`` (the expert policy without its two-seat race search, about a
third faster), ``expert`` (the whole expert policy) — both read only what each seat may know — or
``greedy`` (several times faster, weaker, and told the sampled world's sides)."""


def _black_of(info: Knowledge, hands: list[int]) -> list[int]:
    return [s for s in range(SEATS) if (hands[s] | info.played[s]) & BLACK_MASK]


def public_tracker(world: Game) -> Tracker:
    """A tracker that has read ``world``'s history — public, so the same in every world of a view."""
    tracker = Tracker(world.first_drawer)
    tracker.read_game(world)
    return tracker


def world_gains(world: Game, seat: int, black: list[int], combos: list[Candidate], policy: RolloutPolicy,
                root: Tracker) -> list[float]:
    """Search's evaluation of one world: each candidate played in a copy of ``world`` (``seat`` to
    move), rolled out to the end by ``policy``, valued by :func:`value_for`, minus candidate 0's value
    (so the first gain is exactly 0). ``black`` are the world's ♠3/♠2 seats, ``root`` the
    :func:`public_tracker` of the world; neither ``world`` nor ``root`` is changed."""
    base = 0.0
    gains = []
    for index, combo in enumerate(combos):
        game = world.copy()
        if combo is not None:
            game.play(combo)
        else:
            game.pass_turn()
        rollout(game, black, policy, root.copy())
        value = value_for(game, seat)
        if index == 0:
            base = value
        gains.append(value - base)
    return gains


def mean_and_error(total: float, square: float, n: int) -> tuple[float, float]:
    """The mean of ``n`` values from their sum and sum of squares, and its standard error (0 for one)."""
    mean = total / n
    return mean, math.sqrt(max(0.0, square / n - mean * mean) / max(1, n - 1))


def gain_labels(info: Knowledge, combos: list[Candidate], worlds: int, seed: int, policy: str = "fast",
                truth: list[int] | None = None) -> tuple[list[float], list[float]]:
    """Search's judgement of a decision, as training labels: each candidate's mean gain over
    candidate 0 (the expert's choice) across ``worlds`` worlds by :func:`world_gains`, and the standard
    error of that mean. The worlds are sampled from ``info`` — the seat's view — with a generator
    seeded ``seed``; when ``truth`` (every seat's hand now) is given, the true deal is the first of
    them. Candidate 0's label is exactly 0."""
    if worlds < 1:
        raise ValueError("gain_labels: at least one world")
    rng = random.Random(seed)
    play = POLICIES[policy]
    history = history_plays(info)
    root: Tracker | None = None
    sums = [0.0] * len(combos)
    squares = [0.0] * len(combos)
    for done in range(worlds):
        hands = truth if done == 0 and truth is not None else sample_hands(info, rng)
        world = reconstruct(info, hands, history)
        if root is None:
            root = public_tracker(world)
        gains = world_gains(world, info.seat, _black_of(info, hands), combos, play, root)
        for index, gain in enumerate(gains):
            sums[index] += gain
            squares[index] += gain * gain
    pairs = [mean_and_error(total, square, worlds) for total, square in zip(sums, squares, strict=True)]
    return [mean for mean, _ in pairs], [error for _, error in pairs]


Stats = list[tuple[float, float]]
"""Per candidate: the sum and the sum of squares of its value minus candidate 0's, world by world."""


def evaluate(
    info: Knowledge,
    masks: list[int],
    worlds: int,
    seconds: float,
    seed: int,
    policy: str = "expert",
    at_least_one: bool = True,
    belief: float = 1.0,
    sampler: Sampler = sample_hands,
) -> tuple[Stats, int]:
    """Roll out every candidate (card masks, 0 = pass) on common sampled worlds: ``worlds`` of them,
    or, when ``worlds`` is 0, as many as are expected to fit in ``seconds`` (at least one if
    ``at_least_one``). Returns, per candidate, the sums of its paired differences with candidate 0,
    and the number of worlds. With ``belief`` < 1 each world counts by its weight
    (:func:`niugui.bots.belief.weigh`): the sums are of weighted differences, scaled so that the
    weights add up to the number of worlds. ``sampler`` draws each world's hands (:data:`WORLDS`)."""
    rng = random.Random(seed)
    play = POLICIES[policy]
    started = time.perf_counter()
    deadline = started + seconds
    sums = [0.0] * len(masks)
    squares = [0.0] * len(masks)
    combos = [classify_mask(mask) if mask else None for mask in masks]
    history = history_plays(info)  # the same in every world: classified once
    root: Tracker | None = None  # the public history, the same in every world: read once
    done = 0
    weights = 0.0
    while True:
        if worlds:
            if done >= worlds:
                break
        elif done or not at_least_one:
            now = time.perf_counter()
            if now + (now - started) / max(1, done) * 0.5 > deadline or now >= deadline:
                break
        hands = sampler(info, rng)
        if belief < 1.0:
            weight, world = weigh(info, hands, belief, history)
        else:
            weight, world = 1.0, reconstruct(info, hands, history)
        weights += weight
        if root is None:
            root = public_tracker(world)
        gains = world_gains(world, info.seat, _black_of(info, hands), combos, play, root)
        for index, gain in enumerate(gains):
            sums[index] += weight * gain
            squares[index] += weight * gain * gain
        done += 1
    if belief < 1.0 and weights > 0:
        scale = done / weights
        sums = [x * scale for x in sums]
        squares = [x * scale for x in squares]
    return list(zip(sums, squares, strict=True)), done


# ---- the bot ---------------------------------------------------------------------------------------

def _uniform_worlds(view: View, info: Knowledge) -> Sampler:
    return sample_hands


def _located_worlds(view: View, info: Knowledge) -> Sampler:
    from ..learn.location_features import absolute, located_probs

    holds = absolute(info.seat, located_probs(view)).tolist()
    return partial(sample_located, holds=holds)


WORLDS: dict[str, Callable[[View, Knowledge], Sampler]] = {
    "uniform": _uniform_worlds,
    "located": _located_worlds,
}
"""How the ``worlds`` option draws a decision's worlds: by name, the maker of the decision's sampler
(from the seat's view and what it knows)."""

OPTIONS = ("budget", "iterations", "workers", "method", "max_candidates", "rollout", "confidence", "belief",
           "prior", "worlds")


class SearchBot(Bot):
    """Determinized Monte Carlo search over the view's hidden hands (see the module docstring)."""

    name = "search"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed, **options)
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise ValueError(f"search bot: unknown option(s) {', '.join(sorted(unknown))}; "
                             f"known: {', '.join(OPTIONS)}")
        self.budget = float(options.get("budget", 1.0))
        self.iterations = int(options.get("iterations", 0))
        self.workers = int(options.get("workers", 1))
        self.method = str(options.get("method", "halving"))
        self.max_candidates = int(options.get("max_candidates", 10))
        self.policy = str(options.get("rollout", "fast"))
        self.confidence = float(options.get("confidence", 1.0))
        self.belief = float(options.get("belief", 1.0))
        self.prior = str(options.get("prior", "cheap"))
        self.worlds = str(options.get("worlds", "uniform"))
        if self.worlds not in WORLDS:
            raise ValueError(f"search bot: worlds must be one of {', '.join(WORLDS)}, not {self.worlds!r}")
        if not 0.0 < self.belief <= 1.0:
            raise ValueError("search bot: belief must be in (0, 1]")
        if self.prior not in ("cheap", "learned"):
            raise ValueError(f"search bot: prior must be 'cheap' or 'learned', not {self.prior!r}")
        if self.budget <= 0 or self.iterations < 0 or self.workers < 1 or self.max_candidates < 2:
            raise ValueError("search bot: budget > 0, iterations >= 0, workers >= 1, max_candidates >= 2")
        if self.method not in ("halving", "flat"):
            raise ValueError(f"search bot: method must be 'halving' or 'flat', not {self.method!r}")
        if self.policy not in POLICIES:
            raise ValueError(f"search bot: rollout must be one of {', '.join(POLICIES)}, not {self.policy!r}")
        self.last_worlds = 0
        """How many worlds the last decision sampled (for measurements)."""
        self.sampler: Sampler = sample_hands
        """The current decision's way of drawing worlds (from :data:`WORLDS`)."""

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
        # Candidates depend only on the seat's own hand and the play to beat, which every sampled
        # world shares. Candidate 0, the default, is the expert's own choice (it reads only what the
        # seat knows; with greedy rollouts it is the greedy choice, told this one sample's sides).
        seed = self.rng.getrandbits(64)
        probe_hands = sample_hands(info, random.Random(seed))
        probe = reconstruct(info, probe_hands)
        if self.policy == "greedy":
            first = greedy_policy(probe, _black_of(info, probe_hands))
        else:
            first = expert_combo(probe)  # what the expert bot would play here
        if self.prior == "learned":
            candidates = self._learned_candidates(view, probe, first)
        else:
            candidates = candidates_of(probe, first, self.max_candidates)
        if len(candidates) == 1:
            return _action(candidates[0])
        masks = [0 if c is None else c.mask for c in candidates]
        self.sampler = WORLDS[self.worlds](view, info)
        best = self._search(info, masks, seed, started)
        return _action(candidates[best])

    def _learned_candidates(self, view: View, probe: Game, first: Candidate) -> list[Candidate]:
        """The expert's choice and the plays the learned network scores best, of twice as many
        by the cheap prior."""
        from ..learn.features import encode_actions, encode_state
        from ..learn.model import cached_network
        from .knowledge import situation_from_view

        wide = candidates_of(probe, first, 2 * self.max_candidates)
        sit = situation_from_view(view)
        scores = cached_network().forward(encode_state(sit), encode_actions(sit, wide))
        ranked = sorted(range(1, len(wide)), key=lambda i: -scores[i])
        return [wide[0], *(wide[i] for i in sorted(ranked[: self.max_candidates - 1]))]

    def _search(self, info: Knowledge, masks: list[int], seed: int, started: float) -> int:
        """Successive halving (or flat) over candidates, measured against candidate 0 (the rollout
        policy's choice) on common worlds. Another candidate is chosen only when its mean gain over
        candidate 0 exceeds ``confidence`` standard errors."""
        alive = list(range(len(masks)))
        sums = [0.0] * len(masks)
        squares = [0.0] * len(masks)
        counts = [0] * len(masks)
        phases = 1 if self.method == "flat" else max(1, math.ceil(math.log2(len(masks))))
        end = started + self.budget * 0.85
        for phase in range(phases):
            if self.iterations:
                worlds, seconds = max(1, self.iterations // phases), 0.0
            else:
                worlds, seconds = 0, max(0.0, (end - time.perf_counter()) / (phases - phase))
            stats, n = self._evaluate(info, [masks[i] for i in alive], worlds, seconds,
                                      seed + 7919 * phase, phase == 0)
            if n == 0:
                break  # the budget is spent
            self.last_worlds += n
            for i, (total, square) in zip(alive, stats, strict=True):
                sums[i] += total
                squares[i] += square
                counts[i] += n
            rest = sorted(alive[1:], key=lambda i: -sums[i] / counts[i])  # stable: ties keep the prior
            if phase < phases - 1:
                alive = [0, *sorted(rest[: max(1, math.ceil(len(rest) / 2))])]
        best = max(alive[1:], key=lambda i: sums[i] / counts[i])
        mean, spread = mean_and_error(sums[best], squares[best], counts[best])
        return best if mean > 0 and mean > self.confidence * spread else 0

    def _evaluate(self, info: Knowledge, masks: list[int], worlds: int, seconds: float,
                  seed: int, first: bool) -> tuple[Stats, int]:
        if self.workers == 1:
            return evaluate(info, masks, worlds, seconds, seed, self.policy, first, self.belief, self.sampler)
        try:
            pool = _pool(self.workers - 1)
        except (BrokenProcessPool, RuntimeError, OSError):
            log.warning("search bot: worker processes could not start; searching in one process")
            _POOLS.pop(self.workers - 1, None)
            self.workers = 1
            return evaluate(info, masks, worlds, seconds, seed, self.policy, first, self.belief, self.sampler)
        share = -(-worlds // self.workers) if worlds else 0
        futures: list[Future[tuple[Stats, int]]] = [
            pool.submit(evaluate, info, masks, share, seconds, seed + k, self.policy, False, self.belief,
                        self.sampler)
            for k in range(1, self.workers)
        ]
        stats, n = evaluate(info, masks, share, seconds, seed, self.policy, first, self.belief, self.sampler)
        for future in futures:
            more, m = future.result()
            stats = [(a + c, b + d) for (a, b), (c, d) in zip(stats, more, strict=True)]
            n += m
        return stats, n



_POOLS: dict[int, ProcessPoolExecutor] = {}
"""Worker pools shared by every search bot of this process, by size (one set of processes for all
the bots of a server, not one per bot)."""


def _pool(size: int) -> ProcessPoolExecutor:
    pool = _POOLS.get(size)
    if pool is None:
        pool = _POOLS[size] = ProcessPoolExecutor(size, mp_context=get_context("forkserver"))
        for future in [pool.submit(int) for _ in range(size)]:
            future.result()  # start the workers now, not inside the first timed decision
    return pool


def shutdown_pools() -> None:
    """Stop the search bots' worker processes (they also stop when the process exits)."""
    while _POOLS:
        _POOLS.popitem()[1].shutdown()


def _action(candidate: Candidate) -> Action:
    return None if candidate is None else [str(c) for c in candidate.cards]
