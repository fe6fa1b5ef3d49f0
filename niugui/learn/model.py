"""The ``learned`` network's forward pass in numpy (no torch needed to play).

Each candidate action's advantage over the expert's own choice is scored by a small MLP over the
seat's situation and the action's features (:mod:`niugui.learn.features`):
``relu(state·Ws + action·Wa + b1) → relu(·W2 + b2) → ·w3 + b3``. The state's part of the first
layer is computed once per decision, whatever the number of candidates.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

NAMES = ("ws", "wa", "b1", "w2", "b2", "w3", "b3")
"""The weight arrays, in order (the torch model's parameters, transposed to ``x @ W``)."""
WEIGHTS = Path(__file__).with_name("weights") / "learned.npz"
"""The shipped weights."""


class Network:
    """The MLP with fixed weights (float32 arrays named :data:`NAMES`), and optionally the margin
    chosen for it (an array ``margin`` of one number): the gain over the expert's choice a candidate
    needs to be played.

    An *ensemble* stacks several such MLPs of the same shape (each array gains a leading axis, one
    entry per member; :meth:`average`) and scores each action by the mean of the members' scores:
    each member is computed alone, at its own small size.
    """

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        missing = [name for name in NAMES if name not in weights]
        if missing:
            raise ValueError(f"learned weights: missing {', '.join(missing)}")
        self.ws, self.wa, self.b1, self.w2, self.b2, self.w3, self.b3 = (
            np.asarray(weights[name], dtype=np.float32) for name in NAMES
        )
        self.margin: float | None = float(weights["margin"]) if "margin" in weights else None

    @classmethod
    def load(cls, path: Path | str = WEIGHTS) -> Network:
        """The network saved at ``path`` (an ``.npz`` of :data:`NAMES`)."""
        with np.load(path) as data:
            return cls({name: data[name] for name in data.files})

    @classmethod
    def average(cls, nets: list[Network]) -> Network:
        """The ensemble of ``nets`` (networks of one shape; an ensemble among them counts as its
        members): the mean of their members' scores."""
        singles = [single for net in nets for single in net.singles()]
        if not singles or len({tuple(getattr(s, name).shape for name in NAMES) for s in singles}) != 1:
            raise ValueError("learned weights: an ensemble is made of networks of one shape")
        return cls({name: np.stack([getattr(single, name) for single in singles]) for name in NAMES})

    def members(self) -> int:
        """How many networks this is the mean of (1 for a single network)."""
        return 1 if self.ws.ndim == 2 else int(self.ws.shape[0])

    def singles(self) -> list[Network]:
        """The single networks this is the mean of (itself, for a single network)."""
        if self.ws.ndim == 2:
            return [self]
        return [Network({name: getattr(self, name)[i] for name in NAMES}) for i in range(self.members())]

    def save(self, path: Path | str) -> None:
        arrays = {name: getattr(self, name) for name in NAMES}
        if self.margin is not None:
            arrays["margin"] = np.array(self.margin, dtype=np.float32)
        np.savez(path, **arrays)

    def forward(self, state: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """The score of each action (one row of ``actions`` each) in the situation ``state``."""
        if self.ws.ndim == 2:
            return _forward(state, actions, self.ws, self.wa, self.b1, self.w2, self.b2, self.w3, self.b3)
        members = zip(self.ws, self.wa, self.b1, self.w2, self.b2, self.w3, self.b3, strict=True)
        scores = [_forward(state, actions, *member) for member in members]
        out: np.ndarray = np.mean(scores, axis=0)
        return out


@lru_cache(maxsize=4)
def cached_network(path: str = str(WEIGHTS)) -> Network:
    """The network at ``path``, loaded once per process (the ``learned`` bot's and the ``search``
    bot's learned prior share it).

    >>> cached_network(str(WEIGHTS)) is cached_network(str(WEIGHTS))
    True
    """
    return Network.load(path)


def _forward(state: np.ndarray, actions: np.ndarray, ws: np.ndarray, wa: np.ndarray, b1: np.ndarray,
             w2: np.ndarray, b2: np.ndarray, w3: np.ndarray, b3: np.ndarray) -> np.ndarray:
    hidden = np.maximum(actions @ wa + (state @ ws + b1), 0.0)
    hidden = np.maximum(hidden @ w2 + b2, 0.0)
    out: np.ndarray = hidden @ w3 + b3
    return out
