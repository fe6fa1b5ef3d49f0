"""Without the env extra: the engine and the action encoding still work, and the environments say
which extra to install instead of failing obscurely."""

from __future__ import annotations

import subprocess
import sys

BLOCK = "import sys\nfor name in ('pettingzoo', 'gymnasium', 'numpy'):\n    sys.modules[name] = None\n"


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True, timeout=120)


def test_the_action_encoding_needs_only_the_engine() -> None:
    done = run(
        "import niugui, niugui.env\n"
        "from niugui.env.actions import ACTION_COUNT, encode, decode, legal_actions\n"
        "game = niugui.Game.deal(seed=1)\n"
        "print(ACTION_COUNT, all(decode(a) is None or encode(decode(a)) == a for a in legal_actions(game)))\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["19940", "True"]


def test_the_environments_name_the_missing_extra() -> None:
    for name in ("env", "raw_env", "SeatEnv"):
        done = run(f"import niugui.env\nniugui.env.{name}\n")
        assert done.returncode != 0
        assert "pip install 'niugui[env]'" in done.stderr, done.stderr


def test_the_engine_imports_none_of_the_extra() -> None:
    done = run("import niugui, niugui.env.actions, niugui.bots\nprint('ok')\n")
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
