"""A research environment for 河池牛鬼: PettingZoo (AEC) and Gymnasium, with a fixed action encoding.

``niugui.env.env()`` / ``niugui.env.raw_env()`` are the four-agent PettingZoo environment
(:mod:`niugui.env.aec`); ``niugui.env.SeatEnv`` is a Gymnasium environment for one seat against
niugui bots (:mod:`niugui.env.seat_env`). They need the optional extra: ``pip install 'niugui[env]'``.
The action encoding (:mod:`niugui.env.actions`) needs only the engine. See docs/env.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .actions import ACTION_COUNT, PASS, decode, encode

if TYPE_CHECKING:
    from .aec import env, raw_env
    from .seat_env import SeatEnv

_LAZY = {"env": "aec", "raw_env": "aec", "SeatEnv": "seat_env"}
EXTRA_MISSING = (
    "niugui.env needs the optional 'env' extra (pettingzoo, gymnasium, numpy): pip install 'niugui[env]'"
)


def __getattr__(name: str) -> Any:
    """Import the PettingZoo/Gymnasium parts on first use, so the action encoding works without them."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'niugui.env' has no attribute {name!r}")
    try:
        return getattr(importlib.import_module(f"{__name__}.{module}"), name)
    except ModuleNotFoundError as error:
        if error.name and error.name.split(".")[0] in ("pettingzoo", "gymnasium", "numpy"):
            message = f"{EXTRA_MISSING} ({error.name} is missing)"
            raise ModuleNotFoundError(message, name=error.name) from error
        raise


__all__ = ["ACTION_COUNT", "PASS", "SeatEnv", "decode", "encode", "env", "raw_env"]
