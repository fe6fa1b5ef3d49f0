"""The ``learned`` network's forward pass in numpy (no torch needed to play).

Each candidate action's advantage over the expert's own choice is scored by a small MLP over the
seat's situation and the action's features (:mod:`niugui.learn.features`):
``relu(state·Ws + action·Wa + b1) → relu(·W2 + b2) → ·w3 + b3``. The state's part of the first
layer is computed once per decision, whatever the number of candidates.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

NAMES = ("ws", "wa", "b1", "w2", "b2", "w3", "b3")
"""The weight arrays, in order (the torch model's parameters, transposed to ``x @ W``)."""
WEIGHTS = Path(__file__).with_name("weights") / "learned.npz"
"""The shipped weights."""


class Network:
    """The MLP with fixed weights (float32 arrays named :data:`NAMES`), and optionally the margin
    chosen for it (an array ``margin`` of one number): the gain over the expert's choice a candidate
    needs to be played."""

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

    def save(self, path: Path | str) -> None:
        arrays = {name: getattr(self, name) for name in NAMES}
        if self.margin is not None:
            arrays["margin"] = np.array(self.margin, dtype=np.float32)
        np.savez(path, **arrays)

    def forward(self, state: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """The score of each action (one row of ``actions`` each) in the situation ``state``."""
        hidden = np.maximum(actions @ self.wa + (state @ self.ws + self.b1), 0.0)
        hidden = np.maximum(hidden @ self.w2 + self.b2, 0.0)
        out: np.ndarray = hidden @ self.w3 + self.b3
        return out
