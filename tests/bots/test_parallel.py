"""niugui.parallel without Ray: job order, errors, the options of ``--workers``/``--ray``, and that
nothing but a Ray run imports Ray (tests/bots/test_parallel_ray.py runs games on a Ray cluster)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from niugui.cli.main import main
from niugui.parallel import Backend, BackendError, each_game, map_games

ROOT = Path(__file__).resolve().parents[2]


def slow_square(delay: float, x: int) -> int:
    """A job that finishes later the smaller ``x`` is (so completion order differs from job order)."""
    import time

    time.sleep(delay * (4 - x))
    return x * x


def fails_on_two(x: int) -> int:
    if x == 2:
        raise ValueError("job 2 failed")
    return x


def test_results_come_in_job_order_whatever_order_they_finish() -> None:
    seen: list[int] = []
    jobs = [(x,) for x in range(4)]
    results = map_games(slow_square, jobs, Backend(workers=2), common=(0.05,),
                        on_result=lambda index, _: seen.append(index))
    assert results == [0, 1, 4, 9] == map_games(slow_square, jobs, common=(0.0,))
    assert sorted(seen) == [0, 1, 2, 3]


def test_a_failing_job_raises_its_error_here() -> None:
    for backend in (Backend(), Backend(workers=2)):
        with pytest.raises(ValueError, match="job 2 failed"):
            map_games(fails_on_two, [(x,) for x in range(4)], backend)


def test_each_game_yields_indices_with_results() -> None:
    assert sorted(each_game(pow, [(2, 2), (3, 3)], Backend(workers=2))) == [(0, 4), (1, 27)]


def test_backend_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="workers"):
        Backend(workers=0)
    with pytest.raises(ValueError, match="empty"):
        Backend(ray=" ")
    assert Backend(ray="10.0.0.5:6379").describe() == "Ray at 10.0.0.5:6379"


def test_without_ray_a_ray_run_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    with pytest.raises(BackendError, match=r"pip install -e '\.\[ray\]'"):
        map_games(pow, [(2, 2)], Backend(ray="local"))


def test_arena_without_ray_fails_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    assert main(["arena", "--bots", "basic,random", "--games", "6", "--ray", "--no-progress",
                 "--out", str(tmp_path / "x.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "niugui arena: error: --ray needs Ray" in err and "Traceback" not in err
    assert not (tmp_path / "x.jsonl").exists()  # refused before anything was written


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workers", "2", "--ray"], "--workers and --ray exclude each other"),
        (["--ray", " "], "--ray ADDRESS is empty"),
        (["--workers", "0", "--ray", "local"], "--workers must be at least 1"),
    ],
)
def test_backend_options_mistakes(args: list[str], message: str, capsys: pytest.CaptureFixture[str],
                                  tmp_path: Path) -> None:
    assert main(["arena", "--bots", "basic,random", *args, "--out", str(tmp_path / "x.jsonl")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "x.jsonl").exists()


def test_learn_train_backend_options_mistakes() -> None:
    command = ["learn", "train", "--workers", "2", "--ray", "--dir", "/nonexistent/never-made"]
    run = subprocess.run([sys.executable, "-m", "niugui.cli.main", *command], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 2 and "--workers and --ray exclude each other" in run.stderr
    assert "Traceback" not in run.stderr and not Path("/nonexistent/never-made").exists()


def test_importing_niugui_never_loads_ray() -> None:
    """Ray is optional: the engine, the bots, the arena, training's data and evaluation, the command
    line and the server import it only when a Ray run starts."""
    modules = ["niugui", "niugui.game", "niugui.bots", "niugui.bots.search", "niugui.arena",
               "niugui.parallel",
               "niugui.learn.data", "niugui.learn.evaluate", "niugui.cli.main", "niugui.server.app"]
    code = f"import sys\nfor m in {modules!r}: __import__(m)\nprint('ray' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "False"
