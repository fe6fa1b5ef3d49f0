"""The PettingZoo AEC environment: four agents ``player_0`` … ``player_3``, one per seat (R7).

Each agent observes ``{"observation": …, "action_mask": …}`` encoded from its seat's view alone
(:mod:`niugui.env.observation`) and acts with an id of the fixed action encoding
(:mod:`niugui.env.actions`). Rewards are 0 until the game ends; then every agent gets its score
change from the engine (R33, R34). A seat that has gone out (R30) is not selected again but stays
an agent until the end, because its score is only settled then (R31).

>>> e = env()
>>> e.reset(seed=1)
>>> for agent in e.agent_iter():
...     observation, reward, termination, truncation, info = e.last()
...     action = None if termination else int(observation["action_mask"].nonzero()[0][0])
...     e.step(action)
>>> e.agents
[]
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..game import Game
from .actions import PASS, decode
from .observation import OBSERVATION_SIZE, encode_view
from .render import spectator_text
from .spaces import action_space, observation_space

AGENTS = [f"player_{seat}" for seat in range(4)]
"""Agent names; ``player_i`` plays seat ``i``."""

Observation = dict[str, NDArray[np.int8]]


def env(**kwargs: Any) -> Any:
    """The environment with PettingZoo's usual checks: actions in the space, calls in order."""
    wrapped: Any = raw_env(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):  # type: ignore[misc]  # pettingzoo ships no type information
    """河池牛鬼 for four agents. ``reset(seed=…)`` deals a new game; ``reset(options={"game": g})``
    starts from a copy of the game ``g`` instead (any deal or position, e.g. ``Game.from_record``).

    An illegal action raises :class:`niugui.IllegalMove` (a ``ValueError`` naming the rule) and
    changes nothing. ``render_mode="ansi"`` returns, ``"human"`` prints, what a spectator sees.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "niugui_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: use one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self._observation_space = observation_space()
        self._action_space = action_space()
        self._rng = random.Random()
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        given = (options or {}).get("game")
        if given is not None:
            if not isinstance(given, Game) or given.over:
                raise ValueError("options['game'] must be a niugui Game that is not over")
            self.game = given.copy()
        else:
            self.game = Game.deal(seed=self._rng.getrandbits(64))
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = AGENTS[self._game().to_move or 0]

    def observe(self, agent: str) -> Observation:
        observation, mask = encode_view(self._game().view(AGENTS.index(agent)))
        return {"observation": observation, "action_mask": mask}

    def step(self, action: int | np.integer[Any] | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: give an action id 0..{PASS}, not None")
        game = self._game()
        seat = AGENTS.index(agent)
        combo = decode(int(action))
        if combo is None:
            game.pass_turn(seat)
        else:
            game.play(combo, seat)
        self._clear_rewards()
        result = game.result
        if result is None:
            self.agent_selection = AGENTS[game.to_move or 0]
        else:
            for other, score in zip(AGENTS, result.scores, strict=True):
                self.rewards[other] = float(score)  # R33, R34
                self.terminations[other] = True
                self.infos[other] = {"result": result.to_dict()}
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = spectator_text(self._game())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() first")
        return self.game


__all__ = ["AGENTS", "OBSERVATION_SIZE", "env", "raw_env"]
