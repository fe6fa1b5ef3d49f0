"""``niugui serve --nodes N``: N cluster nodes on one machine (one per core), all listening on the
same port (SO_REUSEPORT: the kernel spreads new connections over them), each restarted when it dies.
SIGTERM or Ctrl-C drains them all (each hands its tables over as it stops)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from types import FrameType

from ..store import Store

RESTART_SECONDS = 1.0


def node_argv(argv: list[str], index: int) -> list[str]:
    """The command line of node ``index``: ``argv`` without ``--nodes``, with a port shared by all.

    >>> node_argv(["serve", "--nodes", "2", "--redis", "redis://h"], 1)[-5:]
    ['--redis', 'redis://h', '--reuse-port', '--node-id', 'node-1']
    """
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--nodes":
            skip = True
        elif not arg.startswith("--nodes="):
            out.append(arg)
    return [*out, "--reuse-port", "--node-id", f"node-{index}"]


def supervise(count: int, db_url: str, argv: list[str]) -> int:
    Store(db_url).migrate()  # once, before the nodes start (they would race to create the schema)
    stopping = False

    def start(index: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", "niugui.cli.main", *node_argv(argv, index)])

    children = {i: start(i) for i in range(count)}
    told: set[int] = set()  # pids sent SIGTERM

    def stop(_signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"niugui: {count} cluster nodes started", flush=True)
    while True:
        for index, child in list(children.items()):
            if child.poll() is None:
                if stopping and child.pid not in told:
                    told.add(child.pid)
                    child.send_signal(signal.SIGTERM)  # it drains: hands its tables over
            elif not stopping:
                print(f"niugui: node {index} exited ({child.returncode}); restarting", flush=True)
                time.sleep(RESTART_SECONDS)
                if not stopping:
                    children[index] = start(index)
        if stopping and all(child.poll() is not None for child in children.values()):
            return 0
        time.sleep(0.2)
