"""The Gymnasium spaces shared by the AEC environment and the single-seat wrapper."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from .actions import ACTION_COUNT
from .observation import OBSERVATION_SIZE


def observation_space() -> spaces.Dict:
    """``{"observation": 695 bits, "action_mask": 19,940 bits}``, both ``int8``."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0, 1, shape=(OBSERVATION_SIZE,), dtype=np.int8),
            "action_mask": spaces.Box(0, 1, shape=(ACTION_COUNT,), dtype=np.int8),
        }
    )


def action_space() -> spaces.Discrete:
    """One id per combination, plus the pass (:mod:`niugui.env.actions`)."""
    return spaces.Discrete(ACTION_COUNT)
