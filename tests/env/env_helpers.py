"""Helpers for the environment tests: seeded random positions through the engine's public API."""

from __future__ import annotations

import random

from niugui import Combo, Game

Action = Combo | None
"""A play, or ``None`` for a pass."""

EXTRA = "needs the optional env extra: pip install -e '.[env]'"


def random_action(game: Game, rng: random.Random, pass_rate: float = 0.35) -> Action:
    """A random legal action for the seat to move: a pass (when allowed) with ``pass_rate``."""
    legal = game.legal_combos()
    if game.can_pass() and (not legal or rng.random() < pass_rate):
        return None
    return rng.choice(legal)


def apply(game: Game, action: Action) -> None:
    if action is None:
        game.pass_turn()
    else:
        game.play(action)


def random_position(seed: int, max_actions: int = 200) -> tuple[Game, list[Action]]:
    """A seeded deal played for a random number of random legal actions (at least one), not over."""
    rng = random.Random(seed)
    game = Game.deal(seed=seed, first_drawer=rng.randrange(4))
    target = rng.randint(1, max_actions)
    actions: list[Action] = []
    while len(actions) < target:
        action = random_action(game, rng)
        trial = game.copy()
        apply(trial, action)
        if trial.over:
            break
        apply(game, action)
        actions.append(action)
    return game, actions
