"""Training the ``learned`` network (needs the ``learn`` extra: ``pip install -e '.[learn]'``).

The network regresses each labelled action's advantage over the expert's choice
(:mod:`niugui.learn.data`) with a mean squared error weighted by each label's weight (the worlds it
averages), AdamW, minibatches drawn by a seeded generator.
Every ``eval_every`` steps it is exported to numpy and played against ``expert`` in duplicate games
(:func:`niugui.learn.evaluate.points_vs_expert`); the curve of those points is plotted. A checkpoint
(model, optimiser, step, curve, generator states) is written at every evaluation, and a run started
again with the same folder resumes from it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from .data import Shard, load
from .features import ACTION_SIZE, STATE_SIZE
from .model import NAMES, Network

HIDDEN = (256, 128)


class Model(nn.Module):
    """The torch twin of :class:`niugui.learn.model.Network`."""

    def __init__(self) -> None:
        super().__init__()
        self.ws = nn.Linear(STATE_SIZE, HIDDEN[0])
        self.wa = nn.Linear(ACTION_SIZE, HIDDEN[0], bias=False)
        self.l2 = nn.Linear(*HIDDEN)
        self.l3 = nn.Linear(HIDDEN[1], 1)

    def forward(self, state: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
        hidden = torch.relu(self.ws(state) + self.wa(action))
        out: torch.Tensor = self.l3(torch.relu(self.l2(hidden))).squeeze(-1)
        return out

    @classmethod
    def from_network(cls, net: Network) -> Model:
        """A model holding ``net``'s weights (to start training from weights trained before)."""
        if net.members() != 1:
            raise ValueError("learned weights: training starts from a single network, not an ensemble")
        model = cls()
        arrays = [net.ws.T, net.wa.T, net.b1, net.w2.T, net.b2, net.w3[None, :], np.array([net.b3])]
        params = [model.ws.weight, model.wa.weight, model.ws.bias, model.l2.weight, model.l2.bias,
                  model.l3.weight, model.l3.bias]
        with torch.no_grad():
            for param, array in zip(params, arrays, strict=True):
                param.copy_(torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32)))
        return model

    def network(self) -> Network:
        """The same weights for numpy inference."""
        with torch.no_grad():
            arrays = [self.ws.weight.T, self.wa.weight.T, self.ws.bias, self.l2.weight.T, self.l2.bias,
                      self.l3.weight[0], self.l3.bias[0]]
            return Network({name: a.detach().numpy().copy() for name, a in zip(NAMES, arrays, strict=True)})


@dataclass(slots=True)
class Settings:
    seed: int = 1
    steps: int = 20_000
    batch: int = 512
    lr: float = 1e-3
    weight_decay: float = 1e-4
    """AdamW's decoupled weight decay: the targets are noisy (one deal's outcome each), so the net
    is held back from fitting the noise."""
    clip: float = 0.0
    """Targets are clipped to ±``clip`` points in training (0: not clipped): a few labels of ±10 or more
    (a blunder's cost) would otherwise dominate the squared error, and only the best candidate's
    gain near the margin decides a move."""
    eval_every: int = 2_000
    eval_games: int = 300
    threads: int = 1
    """Torch's threads: this machine's cores are shared, and small matrices gain nothing from more."""


@dataclass(slots=True)
class Data:
    states: torch.Tensor
    position: torch.Tensor
    actions: torch.Tensor
    advantage: torch.Tensor
    weight: torch.Tensor
    error: torch.Tensor

    @property
    def size(self) -> int:
        return int(self.advantage.shape[0])


def join(shards: list[Shard]) -> Data:
    """One tensor set from several shards (positions re-indexed)."""
    offset = 0
    positions = []
    for shard in shards:
        positions.append(shard.position.astype(np.int64) + offset)
        offset += shard.states.shape[0]
    def cat(arrays: list[np.ndarray], width: int) -> torch.Tensor:
        return torch.from_numpy(np.concatenate(arrays) if arrays else np.zeros((0, width), np.float16))
    return Data(
        cat([s.states for s in shards], STATE_SIZE),
        torch.from_numpy(np.concatenate(positions) if positions else np.zeros(0, np.int64)),
        cat([s.actions for s in shards], ACTION_SIZE),
        vector([s.advantage for s in shards]),
        vector([s.weight for s in shards]),
        vector([s.error for s in shards]),
    )


def vector(arrays: list[np.ndarray]) -> torch.Tensor:
    """One float32 tensor of the concatenated ``arrays``."""
    return torch.from_numpy(np.concatenate(arrays).astype(np.float32) if arrays else np.zeros(0, np.float32))


def split(folder: Path, shards: int, holdout: float) -> tuple[Data, Data]:
    loaded = list(load(folder, shards))
    held = max(1, round(len(loaded) * holdout)) if len(loaded) > 1 else 0
    return join(loaded[: len(loaded) - held]), join(loaded[len(loaded) - held :])


def loss_of(model: Model | None, data: Data, index: torch.Tensor, clip: float = 0.0) -> torch.Tensor:
    """The weighted mean squared error of ``model`` (of predicting 0 when ``None``) on ``index``,
    against targets clipped to ±``clip`` when it is positive."""
    target = data.advantage[index]
    if clip > 0:
        target = target.clamp(-clip, clip)
    if model is None:
        predicted = torch.zeros_like(target)
    else:
        predicted = model(data.states[data.position[index]].float(), data.actions[index].float())
    weight = data.weight[index]
    return (weight * (predicted - target) ** 2).sum() / weight.sum()


def mean_loss(model: Model | None, data: Data, clip: float = 0.0) -> float:
    """The weighted mean squared error over all of ``data`` (in chunks) against targets clipped to
    ±``clip`` if positive; ``None``: predicting 0."""
    if data.size == 0:
        return float("nan")
    total = 0.0
    with torch.no_grad():
        for start in range(0, data.size, 8192):
            index = torch.arange(start, min(start + 8192, data.size))
            total += float(loss_of(model, data, index, clip)) * float(data.weight[index].sum())
    return total / float(data.weight.sum())


def noise_floor(data: Data) -> float:
    """The weighted mean of the labels' squared standard errors: about the loss of a perfect model."""
    if data.size == 0:
        return float("nan")
    return float((data.weight * data.error**2).sum() / data.weight.sum())


Evaluate = Callable[[Network], tuple[float, float]]
"""A network → (points a game against expert, half-width of its 95% interval)."""


def train(
    data: tuple[Data, Data],
    settings: Settings,
    checkpoint: Path,
    evaluate: Evaluate | None = None,
    on_step: Callable[[int, float], None] | None = None,
    start: Network | None = None,
) -> tuple[Model, list[dict[str, Any]]]:
    """Train from ``start``'s weights if given, else from a seeded initialisation (resuming from
    ``checkpoint`` if it exists); returns the model as it was at the
    evaluation with the lowest held-out loss (the last one when nothing is held out) and the curve,
    one entry per evaluation: step, training loss, held-out loss and points against expert."""
    torch.set_num_threads(settings.threads)
    torch.manual_seed(settings.seed)
    generator = torch.Generator().manual_seed(settings.seed)
    model = Model() if start is None else Model.from_network(start)
    optimiser = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
    curve: list[dict[str, Any]] = []
    step = 0
    best: dict[str, Any] = {"loss": float("inf"), "model": model.state_dict()}
    if checkpoint.exists():
        saved = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(saved["model"])
        optimiser.load_state_dict(saved["optimiser"])
        generator.set_state(saved["generator"])
        torch.set_rng_state(saved["torch"])
        step, curve, best = saved["step"], saved["curve"], saved["best"]
    train_data, held = data
    running = float("nan")

    def record() -> None:
        entry: dict[str, Any] = {"step": step, "train_loss": running,
                                 "held_loss": mean_loss(model, held, settings.clip)}
        if evaluate is not None:
            entry["points"], entry["ci"] = evaluate(model.network())
        curve.append(entry)
        if entry["held_loss"] < best["loss"] or held.size == 0:
            best.update(loss=entry["held_loss"], step=step,
                        model={k: v.clone() for k, v in model.state_dict().items()})
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                    "generator": generator.get_state(), "torch": torch.get_rng_state(),
                    "step": step, "curve": curve, "best": best, "settings": asdict(settings)}, checkpoint)

    if step == 0 and not curve:
        record()
    while step < settings.steps:
        index = torch.randint(0, train_data.size, (settings.batch,), generator=generator)
        loss = loss_of(model, train_data, index, settings.clip)
        optimiser.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        optimiser.step()
        step += 1
        value = loss.item()
        running = value if running != running else 0.98 * running + 0.02 * value
        if on_step is not None:
            on_step(step, running)
        if step % settings.eval_every == 0 or step == settings.steps:
            record()
    model.load_state_dict(best["model"])
    return model, curve


def plot(curve: list[dict[str, Any]], path: Path, title: str) -> None:
    """The learning curve (points a game against expert with 95% intervals, and the losses) as an image."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [c["step"] for c in curve]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    if all("points" in c for c in curve):
        top.errorbar(steps, [c["points"] for c in curve], yerr=[c["ci"] for c in curve],
                     marker="o", capsize=3)
    top.axhline(0.0, color="grey", linewidth=0.8)
    top.set_ylabel("points a game vs expert")
    top.set_title(title)
    bottom.plot(steps, [c["held_loss"] for c in curve], marker="o", label="held-out loss")
    bottom.plot(steps, [c["train_loss"] for c in curve], marker=".", label="training loss (running)")
    bottom.set_xlabel("training step")
    bottom.set_ylabel("mean squared error")
    bottom.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_curve(curve: list[dict[str, Any]], path: Path) -> None:
    path.write_text(json.dumps(curve, indent=1) + "\n")
