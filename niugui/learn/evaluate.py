"""Points a game of a network against ``expert``, in duplicate games as the arena plays them
(every deal six times, once per seating of two copies of each, R10's sides cancelling out), for the
learning curve. The published figures come from ``niugui arena`` itself (docs/bots.md)."""

from __future__ import annotations

from typing import Any

from ..arena import ARRANGEMENTS, deals_for, play_out
from ..bots import Bot
from ..bots.expert import ExpertBot
from ..bots.learned import LearnedBot
from ..game import SEATS, Game
from ..parallel import SERIAL, Backend, map_games
from .model import Network


def points_vs_expert(
    net: Network,
    games: int,
    seed: int,
    margin: float | None = None,
    deals: str = "learn-eval",
    backend: Backend = SERIAL,
    check: int = 0,
) -> list[float]:
    """The network's bot's points a game against expert, deal by deal in order (:func:`deal_points`;
    :func:`niugui.arena.mean_ci` gives the mean and the half-width of its 95% interval), over deals
    seeded ``deals/seed/number``, none of them the arena's. ``margin`` defaults to the bot's (the
    network's own, else :data:`niugui.bots.learned.MARGIN`); ``check`` is the bot's (0: the network's
    own play, without rollouts). One deal a job on ``backend`` (processes or Ray): the same figures
    on any of them."""
    options: dict[str, Any] = {"check": check} | ({} if margin is None else {"margin": margin})
    jobs = [(deal,) for deal in range(deals_for(games))]
    return map_games(deal_points, jobs, backend, common=(net, options, f"{deals}/{seed}"))


def deal_points(net: Network, options: dict[str, Any], prefix: str, deal: int) -> float:
    """The network's bot's mean points a seat-game over the six seatings of deal ``prefix/deal`` (its
    seed, for the check's worlds, fixed by the deal and the seating)."""
    total = 0.0
    for arrangement, seats in enumerate(ARRANGEMENTS):
        seed = deal * len(ARRANGEMENTS) + arrangement
        bots: list[Bot] = [LearnedBot(seed, net=net, **options) if side == 0 else ExpertBot()
                           for side in seats]
        game = play_out(Game.deal(seed=f"{prefix}/{deal}", first_drawer=deal % SEATS), bots)
        assert game.result is not None
        total += sum(game.result.scores[s] for s in range(SEATS) if seats[s] == 0)
    return total / (2 * len(ARRANGEMENTS))
