"""``random``: uniform over the legal actions, a pass counted as one action where it is allowed."""

from __future__ import annotations

from .base import Action, Bot, View


class RandomBot(Bot):
    """Picks uniformly among the legal plays and (when allowed) the pass; deterministic for a seed.

    >>> from niugui import Game
    >>> game = Game.deal(seed=5, first_drawer=0)
    >>> view = game.view(game.to_move)
    >>> RandomBot(seed=1).choose(view) == RandomBot(seed=1).choose(view)
    True
    """

    name = "random"

    def choose(self, view: View) -> Action:
        plays: list[list[str]] = view["legal_plays"]
        options = len(plays) + (1 if view["can_pass"] else 0)
        pick = self.rng.randrange(options)
        return None if pick == len(plays) else list(plays[pick])
