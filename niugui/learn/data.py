"""Training data: positions of ``expert`` self-play, each with candidate actions and how much
better or worse than the expert's own choice each one is.

Two kinds of labels (``labels`` of :func:`generate`):

``"search"`` — search's judgement, distilled. At a random share (:data:`SEARCH_RATE`) of the
decisions that offer a choice, every candidate the ``learned`` bot scores is evaluated as the
``search`` bot evaluates it (:func:`niugui.bots.search.gain_labels`): played in ``worlds`` worlds
sampled from the seat's view — the true deal is one of them —, rolled out by the fast expert, its
label is its mean gain over the expert's choice (exactly 0 for that one), with its standard error;
each label weighs ``worlds`` (one world's worth of evidence per world, as a label of the other kind).

``"rollout"`` — one rollout in the true deal:

A game is dealt from a fixed seed and played by the ``expert`` policy in all four seats. At a random
share of the decisions that offer a choice, a few of the other candidates
(:func:`~niugui.bots.search.prior_candidates`) are each tried on a copy of the real game, which the
expert then plays to its end. The expert is deterministic, so the game itself is the expert choice's
outcome: each tried action's *advantage* is its seat's final score (R33, R34) minus the seat's score
in the game as played. The network's input is built from the seat's situation alone (what it may
know); only the targets come from the whole deal, as the outcome of a game does.

Shards of :data:`SHARD_GAMES` (rollout labels) or :data:`SEARCH_SHARD_GAMES` games (search labels)
are written as ``.npz`` files; one that exists is not made again, so an interrupted run resumes.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..bots.expert import DEFAULT, expert_combo
from ..bots.knowledge import Situation, Tracker, situation_from_game
from ..bots.sampling import knowledge_of
from ..bots.search import Candidate, gain_labels, prior_candidates
from ..combos import Combo
from ..game import SEATS, Game
from ..parallel import Backend, as_backend, each_game
from .features import ACTION_SIZE, CANDIDATES, STATE_SIZE, encode_actions, encode_state

SHARD_GAMES = 100
SAMPLE_RATE = 0.6
"""The share of decisions with a choice that become training positions."""
TRIED = 3
"""Candidates other than the expert's own tried at each training position."""
SEARCH_SHARD_GAMES = 20
SEARCH_RATE = 0.5
"""The share of decisions with a choice labelled by search (every candidate, over many worlds)."""
LABELS = ("rollout", "search")


@dataclass(frozen=True, slots=True)
class Shard:
    """Arrays of one shard: states (P, STATE_SIZE); per labelled action its position, features,
    advantage, the advantage's standard error (0 for a single rollout) and its weight in training
    (the worlds it averages)."""

    states: np.ndarray
    position: np.ndarray
    actions: np.ndarray
    advantage: np.ndarray
    error: np.ndarray
    weight: np.ndarray


def _apply(game: Game, action: Combo | None) -> None:
    if action is None:
        game.pass_turn()
    else:
        game.play(action)


def _play_out(game: Game, tracker: Tracker) -> None:
    while game.to_move is not None:
        _apply(game, expert_combo(game, DEFAULT, tracker))


def game_samples(seed: int, index: int) -> tuple[list[np.ndarray], list[tuple[int, np.ndarray, float]]]:
    """One self-play game's training positions: states, and (position, action features, advantage)."""
    rng = random.Random(f"learn/{seed}/{index}/sample")
    game = Game.deal(seed=f"learn/{seed}/{index}", first_drawer=index % 4)
    tracker = Tracker(game.first_drawer)
    pending: list[tuple[int, np.ndarray, int, list[float]]] = []  # (seat, action rows, state index, scores)
    states: list[np.ndarray] = []
    while game.to_move is not None:
        seat = game.to_move
        sit, first, cands = _choices(game, tracker)
        if len(cands) > 1 and rng.random() < SAMPLE_RATE:
            tried = rng.sample(range(1, len(cands)), min(TRIED, len(cands) - 1))
            scores = []
            for i in tried:
                branch = game.copy()
                _apply(branch, cands[i])
                _play_out(branch, tracker.copy())
                assert branch.result is not None
                scores.append(float(branch.result.scores[seat]))
            rows = encode_actions(sit, [cands[0], *(cands[i] for i in tried)])
            states.append(encode_state(sit))
            pending.append((seat, rows, len(states) - 1, scores))
        _apply(game, first)
    assert game.result is not None
    final = game.result.scores
    labels: list[tuple[int, np.ndarray, float]] = []
    for seat, rows, position, scores in pending:
        labels.append((position, rows[0], 0.0))
        for row, score in zip(rows[1:], scores, strict=True):
            labels.append((position, row, score - final[seat]))
    return states, labels


def _choices(game: Game, tracker: Tracker) -> tuple[Situation, Candidate, list[Candidate]]:
    """The mover's situation (its view only), the expert's choice, and the candidates the learned bot
    weighs there (the expert's choice first)."""
    sit = situation_from_game(game, tracker)
    first = expert_combo(game, DEFAULT, tracker)
    cands = prior_candidates(sit.hand, game.legal_combos(), game.current is None, game.can_pass(), first,
                             CANDIDATES)
    return sit, first, cands


Searched = list[tuple[int, np.ndarray, float, float]]
"""Per labelled action: its position, features, mean gain over the expert's choice, standard error."""


def search_samples(seed: int, index: int, worlds: int) -> tuple[list[np.ndarray], Searched]:
    """One self-play game's positions labelled by search: states, and per candidate (position, action
    features, mean gain over the expert's choice, its standard error). The features are the seat's
    view's; the true hands enter only as one of the ``worlds`` worlds of the labels."""
    rng = random.Random(f"learn-search/{seed}/{index}/sample")
    game = Game.deal(seed=f"learn-search/{seed}/{index}", first_drawer=index % 4)
    tracker = Tracker(game.first_drawer)
    states: list[np.ndarray] = []
    labels: Searched = []
    while game.to_move is not None:
        seat = game.to_move
        sit, first, cands = _choices(game, tracker)
        if len(cands) > 1 and rng.random() < SEARCH_RATE:
            truth = [game.hand_mask(s) for s in range(SEATS)]
            gains, errors = gain_labels(knowledge_of(game.view(seat)), cands, worlds, rng.getrandbits(64),
                                        "fast", truth)
            rows = encode_actions(sit, cands)
            states.append(encode_state(sit))
            for row, gain, error in zip(rows, gains, errors, strict=True):
                labels.append((len(states) - 1, row, gain, error))
        _apply(game, first)
    return states, labels


def make_shard(seed: int, number: int, games: int = SHARD_GAMES, labels: str = "rollout",
               worlds: int = 16) -> Shard:
    """The shard ``number`` of a run: games ``number * games`` … (each dealt from its own seed),
    labelled by one rollout in the true deal (``"rollout"``) or by search over ``worlds`` worlds."""
    states: list[np.ndarray] = []
    position: list[int] = []
    actions: list[np.ndarray] = []
    advantage: list[float] = []
    error: list[float] = []
    for index in range(number * games, (number + 1) * games):
        offset = len(states)
        if labels == "search":
            game_states, searched = search_samples(seed, index, worlds)
            for p, row, a, e in searched:
                position.append(offset + p)
                actions.append(row)
                advantage.append(a)
                error.append(e)
        else:
            game_states, rolled = game_samples(seed, index)
            for p, row, a in rolled:
                position.append(offset + p)
                actions.append(row)
                advantage.append(a)
                error.append(0.0)
        states.extend(game_states)
    return Shard(
        np.array(states, dtype=np.float16).reshape(-1, STATE_SIZE),
        np.array(position, dtype=np.int32),
        np.array(actions, dtype=np.float16).reshape(-1, ACTION_SIZE),
        np.array(advantage, dtype=np.float32),
        np.array(error, dtype=np.float32),
        np.full(len(advantage), float(worlds if labels == "search" else 1), dtype=np.float32),
    )


def shard_games(labels: str) -> int:
    """Games per shard for this kind of labels."""
    return SEARCH_SHARD_GAMES if labels == "search" else SHARD_GAMES


def shard_path(folder: Path, number: int) -> Path:
    return folder / f"shard-{number:05d}.npz"


def write_shard(folder: Path, number: int, shard: Shard) -> None:
    """Write ``shard`` as shard ``number`` of ``folder`` (atomically: a stopped run leaves no half file)."""
    path = shard_path(folder, number)
    partial = path.with_suffix(".tmp.npz")
    np.savez(partial, states=shard.states, position=shard.position, actions=shard.actions,
             advantage=shard.advantage, error=shard.error, weight=shard.weight)
    os.replace(partial, path)


def generate(folder: Path, seed: int, shards: int, workers: int | Backend = 1,
             on_shard: Callable[[int], None] | None = None, labels: str = "rollout",
             worlds: int = 16) -> None:
    """Make the missing shards ``0 .. shards-1`` in ``folder``, one shard a job on ``workers`` (a number of
    processes, or a :class:`~niugui.parallel.Backend`: Ray). Workers only play: each shard comes back
    and is written here, so a Ray cluster's workers need no access to ``folder``."""
    if labels not in LABELS:
        raise ValueError(f"labels must be one of {', '.join(LABELS)}, not {labels!r}")
    folder.mkdir(parents=True, exist_ok=True)
    missing = [n for n in range(shards) if not shard_path(folder, n).exists()]
    for number in range(shards):
        if number not in missing and on_shard is not None:
            on_shard(number)
    jobs = [(number, shard_games(labels), labels, worlds) for number in missing]
    for index, shard in each_game(make_shard, jobs, as_backend(workers), common=(seed,)):
        write_shard(folder, missing[index], shard)
        if on_shard is not None:
            on_shard(missing[index])


def load(folder: Path, shards: int) -> Iterator[Shard]:
    """The shards ``0 .. shards-1`` of ``folder`` that exist (shards written before errors and weights
    were stored read as single rollouts: error 0, weight 1)."""
    for number in range(shards):
        path = shard_path(folder, number)
        if path.exists():
            with np.load(path) as data:
                size = data["advantage"].shape[0]
                error = data["error"] if "error" in data.files else np.zeros(size, np.float32)
                weight = data["weight"] if "weight" in data.files else np.ones(size, np.float32)
                yield Shard(data["states"], data["position"], data["actions"], data["advantage"], error,
                            weight)
