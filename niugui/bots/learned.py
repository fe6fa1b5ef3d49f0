"""``learned``: the expert's judgement, corrected by a network trained on what its choices led to.

At each decision the bot forms the candidates the ``search`` bot would weigh — the expert's own
choice first (:func:`niugui.bots.expert.decide`), then pass, then plays by a cheap prior
(:func:`niugui.bots.search.prior_candidates`) — and scores each with the shipped network
(:mod:`niugui.learn.model`, numpy only), which predicts how many points a game the action gains over
the expert's choice. It proposes the best candidate when its predicted gain exceeds ``margin``
points, and then *checks* the proposal: both it and the expert's choice are played out by the fast
expert on the same few worlds sampled from the seat's view (:func:`niugui.bots.search.evaluate`),
and the proposal is played only if it does not lose on average there — otherwise the expert's
choice. The worlds are ``check // cards left in all hands`` (a rollout's work grows with the cards
left, so each check costs about the same; none early in a deal when ``check`` is below the cards
left, and then the network's proposal stands). Its input is only the seat's view (R11, R12). How
the network was trained: :mod:`niugui.learn.data`, :mod:`niugui.learn.train` and docs/bots.md.

Options: ``weights`` (path of an ``.npz``; default the shipped one), ``margin`` (default: the margin
stored with the weights, chosen on evaluation deals when they were trained, else :data:`MARGIN`),
``check`` (default :data:`CHECK`; 0: the network alone, no rollouts).

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
from .sampling import knowledge_of
from .search import evaluate, prior_candidates

MARGIN = 0.1
"""Points a game a candidate must be predicted to gain over the expert's choice to be played, for
weights that carry no margin of their own."""

CHECK = 45
"""Worlds times cards left that check a proposal (:func:`check_worlds`): 3.1 ms of CPU at p99 a
decision in the arena on the two-core development machine (docs/bots.md, "Proposals checked by
rollouts")."""


def check_worlds(check: int, view: View) -> int:
    """How many worlds check a proposal at ``view``: fewer the more cards are left to play.

    >>> check_worlds(45, {"counts": [13, 13, 14, 14]})
    0
    >>> check_worlds(45, {"counts": [2, 0, 5, 3]})
    4
    """
    return check // max(1, sum(view["counts"]))


class LearnedBot(Bot):
    """The expert's choice, overruled where the network predicts a better candidate and a few
    rollouts do not contradict it (module docstring)."""

    name = "learned"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        unknown = set(options) - {"weights", "margin", "check", "net"}
        if unknown:
            raise ValueError(f"learned bot: unknown option(s) {', '.join(sorted(unknown))}; "
                             "known: weights, margin, check")
        net = options.pop("net", None)
        super().__init__(seed, **options)
        weights = str(options.get("weights", WEIGHTS))
        self.net: Network = net if isinstance(net, Network) else cached_network(weights)
        default = MARGIN if self.net.margin is None else self.net.margin
        self.margin = float(options.get("margin", default))
        self.check = int(options.get("check", CHECK))
        if self.check < 0:
            raise ValueError("learned bot: check must be 0 or more")
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
        pick = self.proposal(state, actions) if len(cands) > 1 else 0
        if pick and not self.confirmed(view, cands[0], cands[pick]):
            pick = 0
        chosen = cands[pick]
        return None if chosen is None else codes_of(chosen.mask)

    def proposal(self, state: np.ndarray, actions: np.ndarray) -> int:
        """The candidate the network predicts best if its gain exceeds the margin, else 0."""
        scores = self.net.forward(state, actions)
        gains = scores[1:] - scores[0]
        best = int(np.argmax(gains))
        return best + 1 if gains[best] > self.margin else 0

    def confirmed(self, view: View, first: Combo | None, proposal: Combo | None) -> bool:
        """Whether ``proposal`` gains on average over the expert's choice ``first`` in the worlds of
        :func:`check_worlds`, played out by the fast expert (True when there are none)."""
        worlds = check_worlds(self.check, view)
        if not worlds:
            return True
        masks = [0 if combo is None else combo.mask for combo in (first, proposal)]
        stats, _ = evaluate(knowledge_of(view), masks, worlds, 0.0, self.rng.getrandbits(64), "fast")
        return stats[1][0] >= 0.0


@lru_cache(maxsize=1 << 14)
def _combo(mask: int) -> Combo:
    combo = classify_mask(mask)
    if combo is None:
        raise ValueError("view: a legal play that is not a combination")
    return combo
