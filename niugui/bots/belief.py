"""Belief-weighted determinization: how likely a sampled world makes the plays the table saw.

A world (a guess at the hidden hands, :func:`niugui.bots.sampling.sample_hands`) is replayed
through the public history; at each action of another seat the ``expert`` policy is asked what it
would have done there, seeing only what that seat saw (its own sampled hand and the history so
far). The world's weight is the product, over those actions, of 1 where the expert agrees with what
was played and ``epsilon`` where it does not — a world in which the others' plays look sensible
counts more than one in which they look like mistakes. With ``epsilon = 1`` every world weighs the
same (uniform sampling).

>>> from niugui import Game
>>> import random
>>> from niugui.bots.sampling import knowledge_of, sample_hands
>>> game = Game.deal(seed=2, first_drawer=0)
>>> for _ in range(8):
...     _ = game.play(game.legal_combos()[0]) if game.current is None else game.pass_turn()
>>> info = knowledge_of(game.view(game.to_move))
>>> weight, world = weigh(info, sample_hands(info, random.Random(1)), 0.5)
>>> 0 < weight <= 1 and world.to_move == game.to_move
True
"""

from __future__ import annotations

from ..combos import Combo
from ..game import Game
from .expert import FAST, expert_combo
from .knowledge import Tracker
from .sampling import PASS, Knowledge, dealt_hands, history_plays


def weigh(info: Knowledge, hands: list[int], epsilon: float,
          plays: list[Combo | None] | None = None) -> tuple[float, Game]:
    """The world's weight and the world itself, replayed to now (as :func:`~.sampling.reconstruct`)."""
    game = Game.from_hands(dealt_hands(info, hands), info.first_drawer)
    if plays is None:
        plays = history_plays(info)
    tracker = Tracker(info.first_drawer)
    weight = 1.0
    for (seat, mask), combo in zip(info.history, plays, strict=True):
        if seat != info.seat and epsilon < 1.0:
            guess = expert_combo(game, FAST, tracker)
            if (0 if guess is None else guess.mask) != (0 if mask == PASS else mask):
                weight *= epsilon
        if mask == PASS:
            game.pass_turn(seat)
        else:
            assert combo is not None
            game.play(combo, seat)
    return weight, game
