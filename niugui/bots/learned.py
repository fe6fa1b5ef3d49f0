"""``learned``: the expert's judgement, corrected by a network trained on what its choices led to.

At each decision the bot forms the candidates the ``search`` bot would weigh — the expert's own
choice first (:func:`niugui.bots.expert.decide`), then pass, then plays by a cheap prior
(:func:`niugui.bots.search.prior_candidates`) — and scores each with the shipped network
(:mod:`niugui.learn.model`, numpy only), which predicts how many points a game the action gains over
the expert's choice. It plays the best candidate when its predicted gain exceeds ``margin`` points,
otherwise the expert's choice. Its input is only the seat's view (R11, R12). How the network was
trained: :mod:`niugui.learn.data`, :mod:`niugui.learn.train` and docs/bots.md.

Options: ``weights`` (path of an ``.npz``; default the shipped one), ``margin`` (default: the margin
stored with the weights, chosen on evaluation deals when they were trained, else :data:`MARGIN`).

>>> from niugui import Game
>>> game = Game.deal(seed=3, first_drawer=0)
>>> view = game.view(game.to_move)
>>> LearnedBot().choose(view) in view["legal_plays"]
True
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..cards import codes_of, mask_of_codes
from ..combos import Combo, classify_mask
from ..learn.features import CANDIDATES, encode_actions, encode_state
from ..learn.model import WEIGHTS, Network, cached_network
from .base import Action, Bot, View
from .expert import DEFAULT, decide
from .knowledge import Tracker, situation_from_view
from .search import prior_candidates

MARGIN = 0.1
"""Points a game a candidate must be predicted to gain over the expert's choice to be played, for
weights that carry no margin of their own."""


class LearnedBot(Bot):
    """The expert's choice, overruled where the network predicts a better candidate (module docstring)."""

    name = "learned"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        unknown = set(options) - {"weights", "margin", "net"}
        if unknown:
            raise ValueError(f"learned bot: unknown option(s) {', '.join(sorted(unknown))}; "
                             "known: weights, margin")
        net = options.pop("net", None)
        super().__init__(seed, **options)
        weights = str(options.get("weights", WEIGHTS))
        self.net: Network = net if isinstance(net, Network) else cached_network(weights)
        default = MARGIN if self.net.margin is None else self.net.margin
        self.margin = float(options.get("margin", default))
        self.tracker = Tracker(0)

    def inputs(self, view: View) -> tuple[np.ndarray, np.ndarray, list[Combo | None]]:
        """The network's input for this view — the state, one row per candidate — and the candidates."""
        sit = situation_from_view(view, self.tracker)
        first = decide(sit, DEFAULT)
        legal = [_combo(mask_of_codes(play)) for play in view["legal_plays"]]
        cands = prior_candidates(sit.hand, legal, sit.current is None, bool(view["can_pass"]), first,
                                 CANDIDATES)
        return encode_state(sit), encode_actions(sit, cands), cands

    def choose(self, view: View) -> Action:
        state, actions, cands = self.inputs(view)
        pick = 0
        if len(cands) > 1:
            scores = self.net.forward(state, actions)
            gains = scores[1:] - scores[0]
            best = int(np.argmax(gains))
            if gains[best] > self.margin:
                pick = best + 1
        chosen = cands[pick]
        return None if chosen is None else codes_of(chosen.mask)


@lru_cache(maxsize=1 << 14)
def _combo(mask: int) -> Combo:
    combo = classify_mask(mask)
    if combo is None:
        raise ValueError("view: a legal play that is not a combination")
    return combo
