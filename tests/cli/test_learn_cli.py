"""``niugui learn train``: clear errors for bad arguments (a real run is tests/bots/test_learned.py's
tiny training, and docs/bots.md's command)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def niugui_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "niugui.cli.main", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_learn_needs_an_action() -> None:
    run = niugui_cli("learn")
    assert run.returncode == 2 and "usage: niugui learn" in run.stderr and "Traceback" not in run.stderr


def test_learn_train_refuses_too_few_games() -> None:
    run = niugui_cli("learn", "train", "--games", "10", "--dir", "/nonexistent/never-made")
    assert "Traceback" not in run.stderr
    if "needs the learn extra" in run.stderr:  # without torch: said so, exit 1
        assert run.returncode == 1
    else:
        assert run.returncode == 2 and "--games must be at least 200" in run.stderr
    assert not Path("/nonexistent/never-made").exists()


def test_the_help_lists_learn() -> None:
    run = niugui_cli("--help")
    assert run.returncode == 0 and "    learn " in run.stdout


def test_learn_train_refuses_bad_margins_and_search_games() -> None:
    for args, said in ((["--margins", "0,x"], "--margins a comma-separated list"),
                       (["--labels", "search", "--games", "30"], "--games must be at least 40"),
                       (["--members", "0"], "--members at least 1")):
        run = niugui_cli("learn", "train", *args, "--dir", "/nonexistent/never-made")
        assert "Traceback" not in run.stderr
        if "needs the learn extra" in run.stderr:
            assert run.returncode == 1
        else:
            assert run.returncode == 2 and said in run.stderr, run.stderr
    assert not Path("/nonexistent/never-made").exists()
