"""``niugui arena``'s tables fit the terminal they are printed in: at 60, 80 and 120 columns every
number is printed whole (rich would cut a table too wide for the terminal with ``…``)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console

from niugui import arena
from niugui.cli import arena as arena_cli
from niugui.cli.main import main

WIDTHS = (60, 80, 120)


def wide_summary() -> arena.Summary:
    """A summary whose numbers are as wide as a real run's can be: signs, three-digit times, 100%."""
    outcomes = {o: 0.1 for o in arena.OUTCOMES}
    bots = [
        arena.BotSummary("expert", 36000, -1.234, 0.117, 0.456, 0.1, 1.0, outcomes, outcomes, 999999, 12.345,
                         987.654, 3, 11.111, 876.543),
        arena.BotSummary("package.module:Class", 36000, +1.234, 0.118, 1.0, 0.0, 0.0, outcomes, outcomes,
                         999999, 123.456, 1234.567, 12345, 100.001, 999.999),
    ]
    return arena.Summary(72000, 12000, bots, outcomes)


def numbers(summary: arena.Summary) -> list[str]:
    """Every number the tables must show whole."""
    shown = []
    for bot in summary.bots:
        shown += [f"{bot.mean:+.3f} ± {bot.ci:.3f}", f"{bot.win:.1%}", f"{bot.p99_ms:.3f}",
                  f"{bot.cpu_p99_ms:.3f}", str(bot.fallbacks), str(bot.seat_games)]
    return shown


@pytest.mark.parametrize("width", WIDTHS)
def test_every_table_fits_and_no_number_is_cut(width: int) -> None:
    summary = wide_summary()
    console = Console(file=io.StringIO(), width=width, color_system=None)
    for part in arena_cli.report(summary, width):
        console.print(part)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "…" not in text, text
    assert max(cell_len(line) for line in text.splitlines()) <= width, text
    for number in numbers(summary):
        assert number in text, f"{number!r} not shown whole at {width} columns:\n{text}"
    assert "10.0%" in text and "活抓双牛" in text and "so\n" not in text


@pytest.mark.parametrize("width", WIDTHS)
def test_the_command_at_60_80_and_120_columns(
    width: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real command, its width taken from COLUMNS: no `…` anywhere, the intervals whole, and the
    records' hint names FILE:N."""
    monkeypatch.setenv("COLUMNS", str(width))
    out = tmp_path / "games.jsonl"
    assert main(["arena", "--bots", "random,basic", "--games", "12", "--seed", "3", "--out", str(out),
                 "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "…" not in printed, printed
    intervals = re.findall(r"[+-]\d+\.\d{3} ± \d+\.\d{3}", printed)
    assert len(intervals) == 2, printed
    assert f"niugui replay {out}:k" in printed and "12 games, 2 deals" in printed
    records = out.read_text(encoding="utf-8").splitlines()
    assert all(json.loads(line)["result"] for line in records)
    for line in printed.splitlines():
        if not line.startswith("records: "):  # the path is printed whole, for copying
            assert cell_len(line) <= width, line
