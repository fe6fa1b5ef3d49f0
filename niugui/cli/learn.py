"""``niugui learn train``: make the ``learned`` bot's training data, train its network, plot its curve.

Needs the ``learn`` extra (PyTorch, matplotlib): ``pip install -e '.[learn]'``. Everything is fixed
by ``--seed``; a run stopped part-way resumes from its data shards and checkpoint when started
again with the same arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from ..parallel import Backend, BackendError
from .backend import add_arguments, backend_of
from .backend import start as start_backend

PROG = "niugui learn train"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("learn", help="train the learned bot (needs the learn extra)",
                                   description="Train the learned bot's network (needs the learn extra).")
    sub = parser.add_subparsers(dest="learn_command", metavar="ACTION", required=True)
    train = sub.add_parser("train", help="make data by expert self-play, train, evaluate, plot",
                           description=__doc__)
    train.add_argument("--seed", type=int, default=1,
                       help="seed of the data, the model and the evaluation (1)")
    train.add_argument("--games", type=int, default=15_000, help="self-play games of training data (15000)")
    train.add_argument("--steps", type=int, default=20_000, help="training steps (20000)")
    train.add_argument("--batch", type=int, default=512, help="minibatch size (512)")
    train.add_argument("--clip", type=float, default=0.0,
                       help="clip training targets to ±CLIP points (0: not clipped)")
    train.add_argument("--eval-every", type=int, default=2_000, metavar="N",
                       help="play against expert every N steps (2000)")
    train.add_argument("--eval-games", type=int, default=300, help="games of each evaluation (300)")
    train.add_argument("--labels", choices=("rollout", "search"), default="rollout",
                       help="rollout: one rollout per tried action in the true deal; search: every "
                            "candidate evaluated as the search bot does, over --worlds worlds (rollout)")
    train.add_argument("--worlds", type=int, default=16,
                       help="worlds sampled from the seat's view per search label, the true deal one of "
                            "them (16)")
    train.add_argument("--margins", default="0,0.05,0.1,0.2,0.3",
                       help="margins tried on the trained weights, the best kept with them; the "
                            "learning curve's evaluations play at the first (0,0.05,0.1,0.2,0.3)")
    train.add_argument("--margin-games", type=int, default=1200,
                       help="games against expert per margin tried, on deals of their own (1200)")
    train.add_argument("--init", metavar="NPZ",
                       help="start from these weights (one network, e.g. the first one: git show "
                            "e8c8802:niugui/learn/weights/learned.npz) instead of a random initialisation")
    train.add_argument("--lr", type=float, default=1e-3, help="learning rate (0.001)")
    train.add_argument("--members", type=int, default=1,
                       help="networks trained (seeds SEED, SEED+1, …; each its own checkpoint), shipped as "
                            "an ensemble: the mean of their scores (1)")
    train.add_argument("--ensemble-with", metavar="NPZ[,NPZ…]",
                       help="ship the mean of these weights' scores and the trained networks' (an ensemble)")
    add_arguments(train, "processes making data and playing the evaluations (1)")
    train.add_argument("--dir", default="artifacts/learn", help="where data, checkpoint and plot go")
    train.add_argument("--weights", help="where to write the trained weights (default DIR/learned.npz)")
    train.add_argument("--no-progress", action="store_true", help="no progress bars")
    for command in (parser, train):
        command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    backend = backend_of(args)
    if isinstance(backend, str):
        print(f"{PROG}: error: {backend}", file=sys.stderr)
        return 2
    try:
        return _train(args, backend)
    except BackendError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2


def _train(args: argparse.Namespace, backend: Backend) -> int:
    try:
        import torch

        from ..learn import train as training
    except ImportError as error:
        print(f"{PROG}: needs the learn extra (pip install -e '.[learn]'): {error}", file=sys.stderr)
        return 1
    from ..arena import mean_ci
    from ..learn.data import generate, shard_games
    from ..learn.evaluate import points_vs_expert
    from ..learn.model import Network

    per_shard = shard_games(args.labels)
    try:
        margins = [float(m) for m in args.margins.split(",")]
    except ValueError:
        margins = []
    if (args.games < 2 * per_shard or args.steps < 1 or args.eval_every < 1 or args.eval_games < 1
            or args.worlds < 1 or args.margin_games < 1 or args.members < 1 or not margins):
        print(f"{PROG}: --games must be at least {2 * per_shard}; --steps, --eval-every, --eval-games, "
              "--worlds, --margin-games and --members at least 1; --margins a comma-separated list of "
              "numbers",
              file=sys.stderr)
        return 2
    start_backend(backend)  # a missing Ray or an unreachable cluster fails before any folder is made
    torch.set_num_threads(1)
    folder = Path(args.dir)
    kind = "" if args.labels == "rollout" else f"search{args.worlds}-"
    data_dir = folder / f"data-{kind}seed{args.seed}"
    shards = args.games // per_shard
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[note]}"), TimeRemainingColumn())
    with Progress(*columns, disable=args.no_progress) as progress:
        made = progress.add_task("self-play data (shards)", total=shards, note="")
        generate(data_dir, args.seed, shards, backend, on_shard=lambda n: progress.advance(made),
                 labels=args.labels, worlds=args.worlds)
        data = training.split(data_dir, shards, 0.05)
        start = Network.load(args.init) if args.init else None
        models: list[training.Model] = []
        curves: list[list[dict[str, Any]]] = []
        for member in range(args.members):
            settings = training.Settings(seed=args.seed + member, steps=args.steps, batch=args.batch,
                                         clip=args.clip, lr=args.lr, eval_every=args.eval_every,
                                         eval_games=args.eval_games)
            name = "training" if args.members == 1 else f"training {member + 1}/{args.members}"
            steps = progress.add_task(f"{name} (steps)", total=args.steps, note="")

            def on_step(step: int, loss: float, steps: TaskID = steps) -> None:
                if step % 50 == 0 or step == args.steps:
                    progress.update(steps, completed=step, note=f"loss {loss:.3f}")

            def evaluate(net: Network, steps: TaskID = steps) -> tuple[float, float]:
                progress.update(steps, note="playing expert…")
                return mean_ci(points_vs_expert(net, args.eval_games, args.seed, margins[0], backend=backend))

            checkpoint = folder / f"checkpoint-{kind}seed{args.seed}{_member(member)}.pt"
            model, curve = training.train(data, settings, checkpoint, evaluate, on_step, start)
            progress.update(steps, completed=args.steps)
            models.append(model)
            curves.append(curve)
        members = [model.network() for model in models]
        others = [Network.load(path) for path in args.ensemble_with.split(",")] if args.ensemble_with else []
        net = members[0] if len(members) == 1 and not others else Network.average(others + members)
        tried = progress.add_task("margins (tried)", total=len(margins), note="")
        table = []
        for margin in margins:
            points, ci = mean_ci(points_vs_expert(net, args.margin_games, args.seed, margin,
                                                  deals="learn-margin", backend=backend))
            table.append({"margin": margin, "points": points, "ci": ci, "games": args.margin_games})
            progress.update(tried, advance=1, note=f"{margin:g}: {points:+.3f} ± {ci:.3f}")
    net.margin = max(table, key=lambda t: t["points"])["margin"]
    weights = Path(args.weights) if args.weights else folder / "learned.npz"
    weights.parent.mkdir(parents=True, exist_ok=True)
    net.save(weights)
    (folder / f"margins-{kind}seed{args.seed}.json").write_text(json.dumps(table, indent=1) + "\n")
    for member, curve in enumerate(curves):
        training.write_curve(curve, folder / f"curve-{kind}seed{args.seed}{_member(member)}.json")
    image = folder / f"curve-{kind}seed{args.seed}.png"
    title = f"learned vs expert ({data[0].size:,} training actions, seed {args.seed})"
    training.plot(curves[0], image, title)
    last = curves[0][-1]
    train_data, held = data
    kept = ", ".join(f"{training.mean_loss(model, held, args.clip):.4f}" for model in models)
    print(f"weights: {weights} (margin {net.margin:g})\ncurve: {image}\n"
          f"data: {train_data.size:,} training and {held.size:,} held-out labelled actions\n"
          f"last evaluation{' (of the first network)' if args.members > 1 else ''}: step {last['step']}, "
          f"{last.get('points', float('nan')):+.3f} ± {last.get('ci', float('nan')):.3f} "
          f"points a game vs expert ({args.eval_games} games)\n"
          f"held-out loss{f' (targets clipped to ±{args.clip:g})' if args.clip else ''}: kept "
          f"model{'s' if args.members > 1 else ''} {kept}, predicting 0 "
          f"{training.mean_loss(None, held, args.clip):.4f}, labels' own noise "
          f"{training.noise_floor(held):.4f}")
    for row in table:
        print(f"margin {row['margin']:g}: {row['points']:+.3f} ± {row['ci']:.3f} points a game vs expert "
              f"({row['games']} games, deals learn-margin/{args.seed}/…)")
    return 0


def _member(member: int) -> str:
    """The file-name suffix of a member's checkpoint and curve: none for the first (as with one network).

    >>> _member(0), _member(2)
    ('', '-m2')
    """
    return "" if member == 0 else f"-m{member}"
