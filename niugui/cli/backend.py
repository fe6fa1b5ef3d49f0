"""The command-line options that say where a command's games run (:mod:`niugui.parallel`):
``--workers K`` processes on this machine, or ``--ray [ADDRESS]`` — a local Ray (no address, or
``local``) or an existing Ray cluster — for ``niugui arena`` and ``niugui learn train`` alike."""

from __future__ import annotations

import argparse

from ..parallel import LOCAL, Backend, connect


def add_arguments(parser: argparse.ArgumentParser, workers_help: str) -> None:
    """Add ``--workers`` and ``--ray`` to ``parser``."""
    parser.add_argument("--workers", type=int, default=1, metavar="K", help=workers_help)
    parser.add_argument("--ray", nargs="?", const=LOCAL, metavar="ADDRESS",
                        help="play the games on Ray workers: with no ADDRESS (or 'local') a Ray started on "
                             "this machine, one worker per core; else the Ray cluster at ADDRESS "
                             "(host:port, ray://host:10001 or auto; niugui installed on its nodes). "
                             "Needs the ray extra. Results are the same as in one process")


def backend_of(args: argparse.Namespace) -> Backend | str:
    """The backend the options ask for, or what is wrong with them (one line)."""
    if args.workers < 1:
        return "--workers must be at least 1"
    if args.ray is not None:
        if args.workers != 1:
            return "--workers and --ray exclude each other (Ray gives one worker per core it has)"
        if not args.ray.strip():
            return "--ray ADDRESS is empty (leave it out, or say local, for a local Ray)"
        return Backend(ray=args.ray.strip())
    return Backend(workers=args.workers)


def start(backend: Backend) -> None:
    """Start Ray's driver now, for a Ray backend, so that a missing Ray or an unreachable cluster fails
    before the command writes anything (raises :class:`~niugui.parallel.BackendError`)."""
    if backend.ray is not None:
        connect(backend.ray)
