"""The arena: duplicate seating, statistics on a known case, records that replay, no stalls."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from niugui import Game, arena
from niugui.arena import ARRANGEMENTS, GameReport, mean_ci, percentile, summarise
from niugui.bots import Bot
from niugui.bots.base import View, can_interrupt
from niugui.cli.main import main
from niugui.record import meta_of_record


class LoopingBot(Bot):
    """Never answers (a bot stuck in a loop)."""

    name = "looping"

    def choose(self, view: View) -> list[str] | None:
        while True:
            pass


def test_duplicate_scheme_seats_each_bot_in_each_seat_equally() -> None:
    assert len(ARRANGEMENTS) == len(set(ARRANGEMENTS)) == 6
    for arrangement in ARRANGEMENTS:
        assert sorted(arrangement) == [0, 0, 1, 1]  # two seats each, every game
    for seat in range(4):
        assert Counter(a[seat] for a in ARRANGEMENTS) == {0: 3, 1: 3}
    # Whatever two seats a deal makes 黑方 (R10), each bot holds each pair of seats equally often.
    for pair in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]:
        together = Counter(tuple(a[s] for s in pair) for a in ARRANGEMENTS)
        assert together[0, 0] == together[1, 1] == 1 and together[0, 1] == together[1, 0] == 2


def test_mean_ci_on_a_known_case() -> None:
    mean, half = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert half == pytest.approx(1.959964 * math.sqrt(5 / 3) / 2, rel=1e-6)  # sd = sqrt(5/3)
    assert mean_ci([2.0, 2.0, 2.0]) == (2.0, 0.0)
    assert mean_ci([1.0])[1] == math.inf


def test_percentile_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50
    assert percentile(values, 99) == 99
    assert percentile([3.0], 99) == 3.0


def fake(deal: int, arrangement: int, scores: list[int], outcome: str) -> GameReport:
    return GameReport(deal, arrangement, ARRANGEMENTS[arrangement], scores, outcome, {},
                      ([0.001 * (deal + 1)], [0.002]), [0, 1], ([0.0005], [0.0001 * (deal + 1)]))


def test_summary_on_a_known_case() -> None:
    """Two deals of six games with fixed scores give a known mean, interval and rates (R33, R34)."""
    reports = []
    for a, arrangement in enumerate(ARRANGEMENTS):
        # Deal 0: bot A's seats score +2 and B's -2 when A holds seats 0 and 1, else everyone draws.
        scores = [0] * 4
        if arrangement == (0, 0, 1, 1):
            scores = [2 if arrangement[s] == 0 else -2 for s in range(4)]
        reports.append(fake(0, a, scores, "sweep" if any(scores) else "draw"))
    for a in range(6):  # deal 1: seat 0 is a 双牛鬼 that is caught, whoever sits there
        reports.append(fake(1, a, [-6, 2, 2, 2], "double_caught"))
    summary = summarise(["A", "B"], reports)
    assert summary.games == 12 and summary.deals == 2
    a, b = summary.bots
    # A's seat-games: deal 0 -> +2, +2 and ten 0s (mean 1/3); deal 1 -> seat 0 three times (-6), and
    # the other seats nine times (+2): (3 * -6 + 9 * 2) / 12 = 0.
    assert a.mean == pytest.approx((1 / 3 + 0) / 2)
    sd = math.sqrt((1 / 3 - 1 / 6) ** 2 * 2)  # per-deal means 1/3 and 0 (n - 1 = 1)
    assert a.ci == pytest.approx(1.959964 * sd / math.sqrt(2), rel=1e-5)
    assert b.mean == pytest.approx((-1 / 3 + 0) / 2)
    assert a.seat_games == b.seat_games == 24
    assert a.win == pytest.approx((2 + 9) / 24) and a.loss == pytest.approx(3 / 24)
    assert a.draw == pytest.approx(10 / 24)
    assert a.outcomes_won["sweep"] == pytest.approx(2 / 24)
    assert b.outcomes_lost["sweep"] == pytest.approx(2 / 24)
    assert a.outcomes_lost["double_caught"] == pytest.approx(3 / 24)
    assert summary.outcomes["double_caught"] == 0.5 and summary.outcomes["sweep"] == pytest.approx(1 / 12)
    assert a.decisions == 12 and a.p50_ms == pytest.approx(1.0) and a.p99_ms == pytest.approx(2.0)
    assert a.cpu_p99_ms == pytest.approx(0.5) and b.cpu_p50_ms == pytest.approx(0.1)
    assert b.cpu_p99_ms == pytest.approx(0.2)
    assert a.fallbacks == 0 and b.fallbacks == 12


def test_a_run_is_reproducible_and_its_records_replay(tmp_path: Path) -> None:
    """Records (RECORD.md) replay to the same result; the same seed gives the same games."""
    reports = arena.run(["expert", "basic"], games=12, seed=5)
    assert [(r.deal, r.arrangement) for r in reports] == [(d, a) for d in range(2) for a in range(6)]
    again = arena.run(["expert", "basic"], games=12, seed=5, workers=2)
    assert [r.record for r in again] == [r.record for r in reports]
    for report in reports:
        record = json.loads(json.dumps(report.record))
        game = Game.from_record(record)
        assert game.result is not None and game.result.to_dict() == record["result"]
        assert record["result"]["scores"] == report.scores
        seats = [player["bot"] for player in record["meta"]["players"]]
        assert seats == [["expert", "basic"][b] for b in report.seats]
        assert meta_of_record(record) == record["meta"] and record["meta"]["app"] == "niugui arena"
        assert record["deck"] == Game.deal(seed=arena.deal_seed(5, report.deal)).to_record()["deck"]
    same_deal = {json.dumps(r.record["deck"]) for r in reports if r.deal == 0}
    assert len(same_deal) == 1  # duplicate: one deal for all six seatings


def test_cli_prints_the_table_and_writes_replayable_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "games.jsonl"
    status = main(["arena", "--bots", "random,basic", "--games", "10", "--seed", "2",
                   "--workers", "2", "--out", str(out), "--no-progress"])
    assert status == 0
    printed = capsys.readouterr()
    for text in ("A random", "B basic", "p99 ms", "完胜 sweep", "活抓双牛", "免炒 draw"):
        assert text in printed.out
    assert str(out) in printed.err
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 12  # 10 games round up to two whole deals
    for line in lines:
        record = json.loads(line)
        assert Game.from_record(record).result is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "expert"], "two bots"),
        (["--bots", "expert,nobody"], "unknown bot 'nobody'"),
        (["--bots", "expert,basic", "--games", "0"], "--games"),
        (["--bots", "expert,basic", "--workers", "0"], "--workers"),
    ],
)
def test_cli_mistakes_get_one_line_and_no_traceback(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["arena", *args, "--out", str(tmp_path / "x.jsonl")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.skipif(not can_interrupt(), reason="needs POSIX interval timers on the main thread")
def test_a_stuck_bot_cannot_stall_the_arena() -> None:
    report = arena.play_game([f"{__name__}:LoopingBot", "basic"], seed=1, deal=0, arrangement=0, budget=0.02)
    assert report.record["result"] is not None
    assert report.fallbacks[0] == len(report.times[0]) > 0  # every one of its decisions was cut off
    assert all(t < 1.0 for t in report.times[0])
