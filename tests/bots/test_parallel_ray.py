"""Games on a real Ray cluster — a head and a worker node, each a ``ray start`` process of one CPU —
are the same games as in one process, for the same seeds: the arena (``niugui arena --ray ADDRESS``),
the learned bot's self-play data (with rollout and with search labels) and its evaluation matches;
and so are a local Ray's (``niugui arena --ray``).

The cluster lives on 127.0.0.2 (loopback: Ray rewrites 127.0.0.1 and localhost to the machine's
outward address), with token authentication, no dashboard and no usage reports, in a temporary
folder; it is stopped at the end of the module by signalling the two ``ray start --block`` processes
(each stops its node) and then their process groups.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from niugui import arena, parallel
from niugui.cli.main import main
from niugui.learn import data
from niugui.learn.evaluate import points_vs_expert
from niugui.learn.model import Network
from niugui.parallel import Backend, BackendError, map_games

# Ray is imported by the fixture, after it has set the authentication's environment: Ray reads it once,
# when it is first imported.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                reason="Ray is not installed (the ray extra: pip install -e '.[ray]')")

HOST = "127.0.0.2"
STARTED = "Ray runtime started"
RAY = str(Path(sys.executable).with_name("ray"))


def wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {seconds:g}s for {what}")
        time.sleep(0.1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def start_node(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    """``ray start ARGS --block`` in its own process group, its output in ``log``."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [RAY, "start", *args, "--block", "--num-cpus=1", f"--node-ip-address={HOST}",
             "--object-store-memory=100000000", "--disable-usage-stats"],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )


def stop_node(node: subprocess.Popen[bytes]) -> None:
    node.terminate()  # `ray start --block` stops its node's processes on SIGTERM
    with contextlib.suppress(subprocess.TimeoutExpired):
        node.wait(timeout=30)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(node.pid, signal.SIGKILL)  # whatever of that node is left, and only that
    node.wait()


def test_a_local_ray_plays_the_same_games(tmp_path: Path) -> None:
    """``niugui arena --ray``: a Ray started on this machine (its files and the token Ray makes for it
    kept in temporary folders) plays the one-process run's games."""
    temp = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))
    env = {name: value for name, value in os.environ.items() if not name.startswith("RAY_")}
    env.update(HOME=str(tmp_path), RAY_TMPDIR=str(temp))
    records = {}
    try:
        for name, args in (("one", []), ("ray", ["--ray"])):
            out = tmp_path / f"{name}.jsonl"
            run = subprocess.run([sys.executable, "-m", "niugui.cli.main", "arena", "--bots", "basic,random",
                                  "--games", "12", "--seed", "32", *args, "--no-progress", "--out", str(out)],
                                 env=env, capture_output=True, text=True, timeout=300)
            assert run.returncode == 0, run.stderr
            records[name] = out.read_text(encoding="utf-8").splitlines()
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    assert "Ray (local, one worker per core)" in " ".join(run.stderr.split())
    assert len(records["ray"]) == 12 and records["ray"] == records["one"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    temp = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))  # short: Ray's socket paths must fit 107 bytes
    token = temp / "token"
    token.write_text(secrets.token_hex(32))
    port = free_port()
    address = f"{HOST}:{port}"
    nodes: list[tuple[subprocess.Popen[bytes], Path]] = []
    with pytest.MonkeyPatch.context() as env:
        for name, value in (("RAY_AUTH_MODE", "token"), ("RAY_AUTH_TOKEN_PATH", str(token)),
                            ("RAY_USAGE_STATS_ENABLED", "0")):
            env.setenv(name, value)  # the nodes inherit these; this process, the driver, reads them too
        try:
            for name, args in (("head", ["--head", f"--port={port}", "--include-dashboard=false"]),
                               ("worker", [f"--address={address}"])):
                log = temp / f"{name}.log"
                nodes.append((start_node([*args, f"--temp-dir={temp}"], log), log))
            for node, log in nodes:
                def up(n: subprocess.Popen[bytes] = node, f: Path = log) -> bool:
                    return n.poll() is not None or STARTED in f.read_text(errors="replace")

                wait_for(up, 180, f"the {log.stem} node to start")
                assert node.poll() is None, f"ray start failed:\n{log.read_text(errors='replace')}"
            assert "ray" not in sys.modules, "Ray was imported before its authentication was set"
            client = parallel.connect(address)
            wait_for(lambda: client.available_resources().get("CPU") == 2, 60, "both nodes' CPUs")
            yield address
        finally:
            parallel.disconnect()
            for node, _ in reversed(nodes):
                stop_node(node)
            shutil.rmtree(temp, ignore_errors=True)


def node_of_job(index: int) -> tuple[int, str]:
    """The job's index and the Ray node it ran on; the later a job, the sooner it ends (and each lasts
    long enough for the other node to take some)."""
    import ray

    time.sleep(0.05 * (8 - index))
    return index, ray.get_runtime_context().get_node_id()


def test_jobs_are_spread_over_both_nodes_and_come_back_in_order(cluster: str) -> None:
    from ray import cloudpickle

    nodes: set[str] = set()
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this file
    try:
        for _ in range(5):  # until the scheduler has seen the worker node take jobs; a few rounds at most
            finished: list[int] = []
            results = map_games(node_of_job, [(i,) for i in range(6)], Backend(ray=cluster),
                                on_result=lambda index, _, done=finished: done.append(index))
            assert [index for index, _ in results] == list(range(6))
            nodes.update(node for _, node in results)
            if len(nodes) == 2 and finished != sorted(finished):
                break
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert len(nodes) == 2
    assert finished != sorted(finished)  # they did finish out of order: the order above is map_games's


def test_arena_on_ray_plays_the_same_games(cluster: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    records = {}
    for name, args in (("one", []), ("ray", ["--ray", cluster])):
        out = tmp_path / f"{name}.jsonl"
        assert main(["arena", "--bots", "basic,random", "--games", "24", "--seed", "31", *args,
                     "--no-progress", "--out", str(out)]) == 0
        records[name] = out.read_text(encoding="utf-8").splitlines()
    assert f"Ray at {cluster}" in " ".join(capsys.readouterr().err.split())  # the run's first line
    assert len(records["ray"]) == 24 and records["ray"] == records["one"]
    reports = arena.run(["basic", "random"], 24, 31, Backend(ray=cluster))
    assert [r.scores for r in reports] == [r.scores for r in arena.run(["basic", "random"], 24, 31)]


def test_self_play_data_on_ray_is_the_same(cluster: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(data, "SHARD_GAMES", 2)
    monkeypatch.setattr(data, "SEARCH_SHARD_GAMES", 1)
    for labels in data.LABELS:
        made: dict[str, list[data.Shard]] = {}
        for name, backend in (("one", Backend()), ("ray", Backend(ray=cluster))):
            folder = tmp_path / f"{labels}-{name}"
            done: list[int] = []
            data.generate(folder, 5, 3, backend, on_shard=done.append, labels=labels, worlds=2)
            assert sorted(done) == [0, 1, 2]
            made[name] = list(data.load(folder, 3))
        assert len(made["ray"]) == 3
        for one, on_ray in zip(made["one"], made["ray"], strict=True):
            assert one.advantage.size > 0
            for field in data.Shard.__slots__:
                assert (getattr(one, field) == getattr(on_ray, field)).all(), (labels, field)


def test_evaluation_on_ray_is_the_same(cluster: str) -> None:
    net = Network.load()
    assert points_vs_expert(net, 18, 4, backend=Backend(ray=cluster)) == points_vs_expert(net, 18, 4)


def test_an_unreachable_cluster_is_one_clear_error(cluster: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    dead = f"{HOST}:{free_port()}"
    with pytest.raises(BackendError, match=f"cannot reach the Ray cluster at {dead}"):
        map_games(pow, [(2, 2)], Backend(ray=dead))
    assert main(["arena", "--bots", "basic,random", "--games", "6", "--ray", dead, "--no-progress",
                 "--out", str(tmp_path / "x.jsonl")]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"niugui arena: error: cannot reach the Ray cluster at {dead}" in err and "Traceback" not in err
    assert not (tmp_path / "x.jsonl").exists()
