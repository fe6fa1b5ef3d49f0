"""``bench/timed_run.py``: a time-boxed arena reports exactly the arena's figure for the deals it
finished, and a time-boxed data run writes the shards ``niugui learn train`` reads.

No time is waited on: ``--seconds 0`` stops each run at its first finished job (one worker, so the
first job is deal 0 / the first shard), and the test compares with the same work done directly.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from niugui import arena
from niugui.learn import data

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "timed_run.py"
ROOT = SCRIPT.parents[1]


def timed(*args: str) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_stopped_arena_reports_the_arenas_figure_for_its_deals(tmp_path: Path) -> None:
    specs = ["basic", "random"]
    out = timed("arena", "--bots", ",".join(specs), "--seed", "7", "--workers", "1", "--seconds", "0",
                "--out", str(tmp_path))
    summary = json.loads((tmp_path / "summary.json").read_text())
    expected = arena.summarise(specs, arena.play_deal(specs, 7, 0, 2.0))
    assert summary["deals"] == 1 and summary["games"] == 6
    assert [bot["mean"] for bot in summary["summary"]] == [bot.mean for bot in expected.bots]
    assert f"basic: {expected.bots[0].mean:+.3f}" in out
    records = (tmp_path / "records.jsonl").read_text().splitlines()
    assert [json.loads(r)["meta"]["arena"]["arrangement"] for r in records] == list(range(6))


def test_a_stopped_data_run_writes_the_shards_training_reads(tmp_path: Path) -> None:
    timed("data", "--labels", "search", "--worlds", "1", "--seed", "5", "--first", "3", "--workers", "1",
          "--seconds", "0", "--folder", str(tmp_path))
    assert [p.name for p in tmp_path.iterdir()] == ["shard-00003.npz"]
    (written,) = data.load(tmp_path, 4)
    direct = data.make_shard(5, 3, data.shard_games("search"), "search", worlds=1)
    assert np.array_equal(written.advantage, direct.advantage)
    assert np.array_equal(written.actions, direct.actions)


def test_the_summary_counts_only_the_complete_prefix_of_deals(tmp_path: Path) -> None:
    """Deals 0, 1 and 3 finished (2 did not), and the last line was cut off by a kill: the figure is
    over deals 0 and 1 alone, exactly as the arena computes it over those two."""
    specs = ["basic", "random"]
    played = {deal: arena.play_deal(specs, 7, deal, 2.0) for deal in (0, 1, 3)}
    lines = [json.dumps([dataclasses.asdict(r) for r in played[deal]]) for deal in (3, 0, 1)]
    (tmp_path / "deals.jsonl").write_text("\n".join(lines) + '\n[{"deal": 4, "arran')
    timed("summary", "--bots", ",".join(specs), "--seed", "7", "--out", str(tmp_path))
    summary = json.loads((tmp_path / "summary.json").read_text())
    expected = arena.summarise(specs, played[0] + played[1])
    assert (summary["deals"], summary["games"], summary["finished_beyond_prefix"]) == (2, 12, 1)
    assert [bot["mean"] for bot in summary["summary"]] == [bot.mean for bot in expected.bots]
