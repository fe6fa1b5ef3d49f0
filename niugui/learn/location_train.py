"""Training the card-location network (needs the ``learn`` extra: torch).

Cross-entropy, per unseen card, of the seat that truly held it (positions of
:mod:`niugui.learn.location_data`), averaged over the unseen cards of a position; AdamW, minibatches
drawn by a seeded generator; the step with the lowest validation loss is kept. The torch model is the
twin of :class:`niugui.learn.location_features.LocationNetwork` (same layers, same count prior).

Reproduce the shipped weights and the figures of ``docs/bots.md`` ("Card-location network")::

    nice -n 19 .venv/bin/python -m niugui.learn.location_train --train-games 5000 --workers 2
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from .location_data import Batch, measure, positions
from .location_features import DECK, INPUT_SIZE, NAMES, OTHERS, OUTPUT_SIZE, WEIGHTS, LocationNetwork

HIDDEN = (256, 256)
DROPOUT = 0.3
"""Dropout after each hidden layer in training (a first run without it memorised its 1,500 deals: the
validation loss rose after 200 steps)."""
TRAIN_SEED = 31021
"""Deal seeds of the training games (``TRAIN_SEED/deal``)."""
VALID_SEED = 31022
"""Deal seeds of the games that choose the step kept."""
HELD_OUT_SEED = 5122026
"""Deal seeds of the measurement, fixed before any run and used for nothing else."""
FIXTURE = Path(__file__).parents[2] / "tests" / "bots" / "location_fixture.npz"
"""Torch's outputs on fixed inputs, to check the numpy forward against."""
NEG = -30.0
"""The log count of a seat with no cards (``exp(-30)`` ≈ 0; numpy uses −inf)."""


class LocationModel(nn.Module):
    """The torch twin of :class:`LocationNetwork`."""

    def __init__(self) -> None:
        super().__init__()
        self.l1 = nn.Linear(INPUT_SIZE, HIDDEN[0])
        self.l2 = nn.Linear(*HIDDEN)
        self.l3 = nn.Linear(HIDDEN[1], OUTPUT_SIZE)
        self.drop = nn.Dropout(DROPOUT)
        with torch.no_grad():  # start at the uniform prior
            self.l3.weight.mul_(0.01)
            self.l3.bias.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Raw logits (N, 54, 3)."""
        hidden = self.drop(torch.relu(self.l1(x)))
        out: torch.Tensor = self.l3(self.drop(torch.relu(self.l2(hidden))))
        return out.view(-1, DECK, OTHERS)

    def network(self) -> LocationNetwork:
        params = [self.l1.weight.T, self.l1.bias, self.l2.weight.T, self.l2.bias, self.l3.weight.T,
                  self.l3.bias]
        return LocationNetwork({name: p.detach().numpy().astype(np.float32).copy()
                                for name, p in zip(NAMES, params, strict=True)})


def _tensors(batch: Batch) -> tuple[torch.Tensor, ...]:
    lc = np.where(np.isfinite(batch.log_counts), batch.log_counts, NEG).astype(np.float32)
    target = np.where(batch.unseen, batch.target, 0).astype(np.int64)
    return (torch.from_numpy(batch.x), torch.from_numpy(batch.unseen), torch.from_numpy(lc),
            torch.from_numpy(target))


def loss_of(model: LocationModel, x: torch.Tensor, unseen: torch.Tensor, lc: torch.Tensor,
            target: torch.Tensor) -> torch.Tensor:
    """Mean over positions of the mean cross-entropy over their unseen cards."""
    logp = torch.log_softmax(model(x) + lc[:, None, :], dim=-1)
    picked = logp.gather(-1, target[..., None]).squeeze(-1)
    per = -(picked * unseen).sum(1) / unseen.sum(1).clamp(min=1)
    return per.mean()


def train(data: Batch, valid: Batch, steps: int, batch_size: int = 512, lr: float = 1e-3, seed: int = 0,
          every: int = 200, log: bool = True,
          threads: int = 1) -> tuple[LocationModel, list[dict[str, float]]]:
    """Train for ``steps`` minibatches; returns the model at its best validation loss and the curve."""
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(seed)
    model = LocationModel()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    tx, tu, tl, tt = _tensors(data)
    vx, vu, vl, vt = _tensors(valid)
    best = (float("inf"), {k: v.clone() for k, v in model.state_dict().items()})
    curve: list[dict[str, float]] = []
    started = time.perf_counter()
    for step in range(1, steps + 1):
        index = torch.randint(0, tx.shape[0], (batch_size,), generator=gen)
        loss = loss_of(model, tx[index], tu[index], tl[index], tt[index])
        opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        opt.step()
        if step % every == 0 or step == steps:
            model.eval()
            with torch.no_grad():
                v = float(loss_of(model, vx, vu, vl, vt))
            model.train()
            curve.append({"step": step, "train": float(loss.detach()), "valid": v})
            if log:
                took = time.perf_counter() - started
                print(f"step {step}: train {float(loss.detach()):.4f} valid {v:.4f} ({took:.0f} s)",
                      flush=True)
            if v < best[0]:
                best = (v, {k: t.clone() for k, t in model.state_dict().items()})
    model.load_state_dict(best[1])
    model.eval()
    return model, curve


def write_fixture(model: LocationModel, batch: Batch, path: Path = FIXTURE, rows: int = 8) -> None:
    """Torch's logits and probabilities on the first ``rows`` positions of ``batch`` (its inputs too)."""
    x, unseen, lc, _ = _tensors(batch)
    with torch.no_grad():
        logits = model(x[:rows])
        probs = torch.softmax(logits + lc[:rows, None, :], -1) * unseen[:rows, :, None]
    np.savez_compressed(path, x=batch.x[:rows], unseen=batch.unseen[:rows],
                        log_counts=batch.log_counts[:rows], logits=logits.numpy(), probs=probs.numpy())


def plot(curve: list[dict[str, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([c["step"] for c in curve], [c["train"] for c in curve], label="train (minibatch)")
    ax.plot([c["step"] for c in curve], [c["valid"] for c in curve], label="validation")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy per unseen card")
    ax.set_title("card-location network")
    ax.legend()
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m niugui.learn.location_train", description=__doc__)
    parser.add_argument("--train-games", type=int, default=5000)
    parser.add_argument("--valid-games", type=int, default=150)
    parser.add_argument("--test-games", type=int, default=600)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--all-seats", action="store_true",
                        help="train on every seat's view at each decision, not only the mover's")
    parser.add_argument("--bots", default="expert,expert", help="the self-play games' two bot specs")
    parser.add_argument("--weights", default=str(WEIGHTS))
    parser.add_argument("--dir", default="artifacts/location")
    args = parser.parse_args(argv)
    specs = args.bots.split(",")
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    data = positions(specs, TRAIN_SEED, range(args.train_games), all_seats=args.all_seats,
                     workers=args.workers)
    valid = positions(specs, VALID_SEED, range(args.valid_games), workers=args.workers)
    took = time.perf_counter() - started
    print(f"{len(data):,} training positions, {len(valid):,} validation ({took:.0f} s)")
    model, curve = train(data, valid, args.steps)
    net = model.network()
    net.save(args.weights)
    write_fixture(model, valid)
    plot(curve, folder / "location-curve.png")
    test = positions(specs, HELD_OUT_SEED, range(args.test_games), workers=args.workers)
    figures = measure(net, test)
    report = {"train_positions": len(data), "test_positions": len(test), "test_games": args.test_games,
              "seconds": time.perf_counter() - started, "curve": curve, "held_out": figures}
    (folder / "location.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    print(json.dumps(figures, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
