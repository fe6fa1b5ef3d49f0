"""Positions for bot tests: games in progress at random points."""

from __future__ import annotations

import random

from niugui import Game


def positions(count: int, seed: int = 0) -> list[Game]:
    """Games in progress at random points, reached by random legal actions."""
    rng = random.Random(seed)
    out = []
    for n in range(count):
        game = Game.deal(seed=seed * 1000 + n, first_drawer=n % 4)
        for _ in range(rng.randrange(0, 90)):
            if game.over:
                break
            moves = game.legal_combos()
            if game.can_pass() and (not moves or rng.random() < 0.4):
                game.pass_turn()
            else:
                game.play(rng.choice(moves))
        if not game.over:
            out.append(game)
    return out
