"""A Gymnasium environment for one seat; niugui bots (:func:`niugui.bots.load_bot`) play the other three.

Observations, actions and the final reward are those of the AEC environment (docs/env.md): the
learner acts with an action id, the bots answer through :func:`niugui.bots.choose_safely` until it
is the learner's turn again or the game is over; the reward is 0 until the end, then the learner's
score change (R33, R34).

>>> env = SeatEnv(opponents="random", seat=0)
>>> observation, info = env.reset(seed=3)
>>> done = False
>>> while not done:
...     action = int(observation["action_mask"].nonzero()[0][-1])  # the pass when allowed
...     observation, reward, done, truncated, info = env.step(action)
>>> reward == info["result"]["scores"][0]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from numpy.typing import NDArray

from ..bots import Bot, choose_safely, load_bot
from ..game import Game
from .actions import PASS, decode
from .observation import SEATS, encode_mask, encode_view
from .render import spectator_text
from .spaces import action_space, observation_space

Observation = dict[str, Any]
"""``{"observation": int8 array, "action_mask": int8 array}``."""
Opponent = str | Bot


class SeatEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of 河池牛鬼 against three niugui bots.

    ``opponents``: one bot (a spec such as ``"expert"``, or a ``Bot``) for all three other seats, or
    three, for the seats after the learner's in play order. Specs are loaded afresh at each
    ``reset`` with seeds drawn from the environment's seed, so an episode is reproducible; ``Bot``
    instances are used as they are. ``seat``: the learner's seat, or ``None`` for a random seat each
    episode. ``reset(options={"game": g})`` starts from a copy of the game ``g``.
    """

    metadata = {"render_modes": ["ansi", "human"]}  # noqa: RUF012  (Gymnasium's convention)

    def __init__(
        self,
        opponents: Opponent | Sequence[Opponent] = "expert",
        seat: int | None = 0,
        render_mode: str | None = None,
        **bot_options: Any,
    ) -> None:
        if seat is not None and (not isinstance(seat, int) or not 0 <= seat < SEATS):
            raise ValueError(f"seat: must be 0..3 or None (a random seat each episode), not {seat!r}")
        if isinstance(opponents, str | Bot):
            opponents = [opponents] * (SEATS - 1)
        if len(opponents) != SEATS - 1:
            raise ValueError(f"opponents: give one bot or three, not {len(opponents)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: use one of {self.metadata['render_modes']}, not {render_mode!r}")
        for spec in opponents:
            if isinstance(spec, str):
                load_bot(spec, **bot_options)  # a bad name fails here, with load_bot's message
        self.opponents = list(opponents)
        self.bot_options = bot_options
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = action_space()
        self.game: Game | None = None
        self._bots: dict[int, Bot] = {}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        given = (options or {}).get("game")
        if given is not None:
            if not isinstance(given, Game) or given.over:
                raise ValueError("options['game'] must be a niugui Game that is not over")
            game = given.copy()
        else:
            game = Game.deal(seed=int(rng.integers(2**63)))
        self.seat = int(rng.integers(SEATS)) if self.fixed_seat is None else self.fixed_seat
        self._bots = {}
        for step, spec in enumerate(self.opponents, start=1):
            bot_seed = int(rng.integers(2**63))
            bot = load_bot(spec, seed=bot_seed, **self.bot_options) if isinstance(spec, str) else spec
            self._bots[(self.seat + step) % SEATS] = bot
        self.game = game
        self._let_bots_play()
        if game.over:
            raise ValueError(f"the game ends before seat {self.seat} moves: nothing to learn from it")
        return self._observe(), {}

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        game = self._game()
        if game.over:
            raise RuntimeError("the episode is over: call reset()")
        combo = decode(int(action))
        if combo is None:
            game.pass_turn(self.seat)
        else:
            game.play(combo, self.seat)
        self._let_bots_play()
        result = game.result
        if self.render_mode == "human":
            self.render()
        if result is None:
            return self._observe(), 0.0, False, False, {}
        return self._observe(), float(result.scores[self.seat]), True, False, {"result": result.to_dict()}

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal actions now, as booleans (the hook of sb3-contrib's ``MaskablePPO``)."""
        return encode_mask(self._game().view(self.seat)).astype(bool)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = spectator_text(self._game())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _let_bots_play(self) -> None:
        game = self._game()
        while not game.over and game.to_move != self.seat:
            mover = game.to_move
            assert mover is not None
            play = choose_safely(self._bots[mover], game.view(mover))
            if play is None:
                game.pass_turn(mover)
            else:
                game.play(play, mover)

    def _observe(self) -> Observation:
        observation, mask = encode_view(self._game().view(self.seat))
        return {"observation": observation, "action_mask": mask}

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() first")
        return self.game


__all__ = ["PASS", "SeatEnv"]
