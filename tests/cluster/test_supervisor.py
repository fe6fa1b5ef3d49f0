"""``niugui serve --nodes 2``: two nodes on one port (SO_REUSEPORT), one restarted when it dies, both
drained by one SIGTERM."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
from server_harness import ROOT, free_port

from .cluster_harness import Cluster
from .conftest import redis_url


def _health(port: int) -> dict[str, object]:
    try:
        answer: dict[str, object] = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json()
        return answer
    except httpx.HTTPError:
        return {}


def test_two_nodes_on_one_port(tmp_path: Path, pg_schema: str, redis_prefix: str) -> None:
    port = free_port()
    cmd = [sys.executable, "-m", "niugui.cli.main", "serve", "--nodes", "2", "--port", str(port),
           "--db", pg_schema, "--redis", redis_url(), "--redis-prefix", redis_prefix, "--lease", "3",
           "--data", str(tmp_path), "--log-level", "info"]  # fmt: skip
    with open(tmp_path / "nodes.log", "wb") as log:
        supervisor = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=log)
    try:
        Cluster.wait(lambda: _health(port).get("nodes") == 2, "two nodes to be up and see each other")
        seen: set[object] = set()
        Cluster.wait(lambda: seen.add(_health(port).get("node")) or seen >= {"node-0", "node-1"},
                     "connections to reach both nodes")  # fmt: skip
        pid = int(subprocess.check_output(["pgrep", "-P", str(supervisor.pid)]).split()[0])
        os.kill(pid, signal.SIGKILL)
        Cluster.wait(lambda: len(subprocess.check_output(["pgrep", "-P", str(supervisor.pid)]).split()) == 2
                     and _health(port).get("nodes") == 2, "the dead node to be restarted")  # fmt: skip
    finally:
        supervisor.send_signal(signal.SIGTERM)
        code: int | str
        try:
            code = supervisor.wait(60)
        except subprocess.TimeoutExpired:  # leave no node behind for the tests after this one
            stuck = subprocess.run(["pgrep", "-P", str(supervisor.pid)], capture_output=True, text=True)
            for node in stuck.stdout.split():  # first, where its tasks wait (niugui/server/stacks.py)
                os.kill(int(node), signal.SIGUSR2)
            with contextlib.suppress(TimeoutError):
                Cluster.wait(lambda: '"asyncio task"' in (tmp_path / "nodes.log").read_text(), "a dump", 10)
            for node in stuck.stdout.split():
                os.kill(int(node), signal.SIGKILL)
            supervisor.kill()
            supervisor.wait()
            code = f"still running 60 s after SIGTERM (nodes {stuck.stdout.split()} killed)"
        logged = (tmp_path / "nodes.log").read_text()
        assert code == 0, f"{code}: " + logged[-20000:]
        assert "did not drain in time" not in logged, logged[-20000:]
