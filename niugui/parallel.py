"""Where many independent games are played: in this process, in worker processes, or on Ray workers.

One interface for every batch of games the project plays — the arena's deals (:mod:`niugui.arena`),
the learned bot's self-play data (:mod:`niugui.learn.data`) and its evaluation matches
(:mod:`niugui.learn.evaluate`): :func:`map_games` calls ``fn(*common, *job)`` once per job and returns
the results **in job order**, whatever order they finish in, so a run's results depend on its seeds
alone, never on the backend or the number of workers. Each job derives its games' seeds from its
own arguments (a deal's number, a shard's number), as the single-process run does.

A :class:`Backend` says where the jobs run:

- ``Backend()`` — here, one after the other;
- ``Backend(workers=K)`` — ``K`` worker processes on this machine;
- ``Backend(ray="local")`` — a Ray started on this machine, as many workers as cores;
- ``Backend(ray=ADDRESS)`` — an existing Ray cluster (``ray.init(address=ADDRESS)``, e.g.
  ``10.0.0.5:6379``, ``ray://head:10001`` or ``auto``); niugui must be installed on its nodes.

Ray is optional (the ``ray`` extra): it is imported only when a Ray backend runs, so importing the
engine, the bots, the arena or the server never loads it.

>>> map_games(pow, [(2, 3), (3, 2)])
[8, 9]
>>> Backend().describe(), Backend(workers=2).describe(), Backend(ray="local").describe()
('this process', '2 worker processes', 'Ray (local, one worker per core)')
"""

from __future__ import annotations

import importlib
import logging
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from functools import partial
from multiprocessing import get_context
from typing import Any, TypeVar

R = TypeVar("R")
LOCAL = "local"
"""The ``--ray`` address that starts a Ray on this machine instead of joining a cluster."""


class BackendError(RuntimeError):
    """The backend cannot run: Ray is not installed, or its cluster cannot be reached."""


@dataclass(frozen=True, slots=True)
class Backend:
    """Where :func:`map_games` runs its jobs: ``workers`` processes here, or Ray when ``ray`` is set
    (:data:`LOCAL` or a cluster's address)."""

    workers: int = 1
    ray: str | None = None

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError("workers must be at least 1")
        if self.ray is not None and not self.ray.strip():
            raise ValueError("the Ray address is empty (leave it out, or say local, for a local Ray)")

    def describe(self) -> str:
        """Where the games run, in a few words (for a run's first line)."""
        if self.ray == LOCAL:
            return "Ray (local, one worker per core)"
        if self.ray is not None:
            return f"Ray at {self.ray}"
        return "this process" if self.workers == 1 else f"{self.workers} worker processes"


SERIAL = Backend()


def as_backend(workers: int | Backend) -> Backend:
    """A backend as given, or ``workers`` processes on this machine for a number.

    >>> as_backend(3) == Backend(workers=3), as_backend(Backend(ray="local")).ray
    (True, 'local')
    """
    return workers if isinstance(workers, Backend) else Backend(workers=max(1, workers))


def map_games(
    fn: Callable[..., R],
    jobs: Sequence[tuple[Any, ...]],
    backend: Backend = SERIAL,
    common: tuple[Any, ...] = (),
    on_result: Callable[[int, R], None] | None = None,
) -> list[R]:
    """``[fn(*common, *job) for job in jobs]``, run on ``backend`` (see :func:`each_game`);
    ``on_result(index, result)`` is called in this process as each job completes, in completion order."""
    done: dict[int, R] = {}
    for index, result in each_game(fn, jobs, backend, common):
        done[index] = result
        if on_result is not None:
            on_result(index, result)
    return [done[index] for index in range(len(jobs))]


def each_game(
    fn: Callable[..., R],
    jobs: Sequence[tuple[Any, ...]],
    backend: Backend = SERIAL,
    common: tuple[Any, ...] = (),
) -> Iterator[tuple[int, R]]:
    """``(index, fn(*common, *job))`` for each job, in completion order, run on ``backend``.

    ``fn`` must be a Python function defined at a module's top level (workers import it by name; the
    processes are started by a fork server, so a script that uses them needs the usual
    ``if __name__ == "__main__":`` guard). ``common`` is sent to the
    workers once (a network's weights, say), not once per job. A job that raises stops the run: the
    jobs not yet started are cancelled and the error is raised here; so does closing the iterator.
    """
    if backend.ray is not None:
        yield from _on_ray(fn, jobs, backend.ray, common)
    elif backend.workers <= 1 or len(jobs) <= 1:
        for index, job in enumerate(jobs):
            yield index, fn(*common, *job)
    else:
        yield from _in_processes(fn, jobs, backend.workers, common)


def _in_processes(fn: Callable[..., R], jobs: Sequence[tuple[Any, ...]], workers: int,
                  common: tuple[Any, ...]) -> Iterator[tuple[int, R]]:
    # forkserver: the workers are forked from a clean server process, never from this one, which may
    # hold threads (PyTorch's, Ray's) that a plain fork would copy mid-lock.
    call = partial(fn, *common) if common else fn
    with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=get_context("forkserver")) as pool:
        futures: dict[Future[R], int] = {pool.submit(call, *job): i for i, job in enumerate(jobs)}
        pending = set(futures)
        try:
            while pending:
                complete, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(complete, key=futures.__getitem__):
                    yield futures[future], future.result()
        except BaseException:
            for future in pending:
                future.cancel()
            raise


def _on_ray(fn: Callable[..., R], jobs: Sequence[tuple[Any, ...]], address: str,
            common: tuple[Any, ...]) -> Iterator[tuple[int, R]]:
    ray = connect(address)
    # SPREAD: the jobs are dealt over the cluster's nodes, not packed onto the driver's node first.
    task = ray.remote(fn).options(scheduling_strategy="SPREAD")
    shared = [ray.put(value) for value in common]
    refs = {task.remote(*shared, *job): i for i, job in enumerate(jobs)}
    pending = list(refs)
    try:
        while pending:
            complete, pending = ray.wait(pending, num_returns=1)
            for ref in complete:
                yield refs[ref], ray.get(ref)
    except BaseException:
        for ref in pending:
            ray.cancel(ref)
        raise


CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a cluster's address to accept a connection before giving up."""
_connected: list[str] = []
"""The address this process's Ray driver was started with (none yet: empty)."""


def connect(address: str) -> Any:
    """The ``ray`` module, its driver started for ``address`` (:data:`LOCAL`: a Ray on this machine with
    one worker per core, on the loopback address, without dashboard or usage reports) — once per
    process. A driver this module started for another address is shut down first; one the caller
    started itself (``ray.init`` before) is used as it is."""
    try:
        ray = importlib.import_module("ray")
    except ImportError as error:
        raise BackendError(f"--ray needs Ray: pip install -e '.[ray]' ({error})") from error
    if ray.is_initialized():
        if _connected in ([], [address]):
            return ray
        ray.shutdown()
        _connected.clear()
    where = "start a local Ray" if address == LOCAL else f"reach the Ray cluster at {address}"
    try:
        _check_reachable(address)
        if address == LOCAL:
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            ray.init(num_cpus=os.cpu_count() or 1, include_dashboard=False, _node_ip_address="127.0.0.1",
                     logging_level=logging.WARNING)
        else:
            ray.init(address=address, logging_level=logging.WARNING)
    except Exception as error:  # Ray raises ConnectionError, RuntimeError, ValueError…
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise BackendError(f"cannot {where}: {first}") from error
    _connected.append(address)
    return ray


def _check_reachable(address: str) -> None:
    """Fail at once when a ``host:port`` address does not answer (Ray itself retries for minutes)."""
    host, colon, port = address.rpartition(":")
    if not colon or "://" in address or not port.isdigit():
        return  # local, auto, ray://…: Ray's own checks
    with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT):
        pass


def disconnect() -> None:
    """Shut this process's Ray driver down, if one was started (a local Ray stops with it)."""
    if _connected:
        importlib.import_module("ray").shutdown()
        _connected.clear()
