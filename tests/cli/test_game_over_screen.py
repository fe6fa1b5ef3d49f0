"""Snapshots of the terminal game's game-over screen (R32–R36) at 60×30 and 100×35, in Chinese and
English: who won with their seats, the outcome and what it scores, places, signed changes and totals.

The snapshots are in tests/cli/snapshots/; after a deliberate change of the screen, rewrite them with
``NIUGUI_UPDATE_SNAPSHOTS=1`` and read the diff before committing.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console

from niugui import Game
from niugui.cli import terminal_view as tv

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
BOTS = {1: "expert", 2: "basic", 3: "search"}
CASES = {
    "sweep": "sample-game.json",  # R33: 牛鬼完胜, the black side loses
    "double": "one-against-three.json",  # R34: one against three
    "escape": "escaped.json",  # R35
}


def final_view(example: str) -> dict[str, Any]:
    record = json.loads((ROOT / "examples" / example).read_text(encoding="utf-8"))
    return Game.from_record(record).view(0)


def screen(view: dict[str, Any], lang: str, width: int, height: int) -> str:
    scores = view["result"]["scores"]
    totals = [before + change for before, change in zip([3, -1, 0, -2], scores, strict=True)]
    console = Console(file=io.StringIO(), width=width, height=height, color_system=None, force_terminal=False)
    console.print(tv.result_panel(view, lang, totals, 4, bots=BOTS, width=width, height=height))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


@pytest.mark.parametrize("size", [(60, 30), (100, 35)], ids=["60x30", "100x35"])
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_r32_r36_the_game_over_screen(case: str, lang: str, size: tuple[int, int]) -> None:
    width, height = size
    view = final_view(CASES[case])
    text = screen(view, lang, width, height)
    lines = text.splitlines()
    assert len(lines) + tv.RESULT_FOOTER_LINES <= height, text  # room for the record's path, the question
    assert max(cell_len(line) for line in lines) <= width and "…" not in text, text
    snapshot = SNAPSHOTS / f"game-over-{case}-{lang}-{width}x{height}.txt"
    if os.environ.get("NIUGUI_UPDATE_SNAPSHOTS"):
        snapshot.write_text(text, encoding="utf-8")
    assert text == snapshot.read_text(encoding="utf-8"), f"{snapshot.name} differs:\n{text}"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_r32_the_winner_line_names_the_side_of_the_first_out_and_its_seats(lang: str) -> None:
    """R32: the side of the 上游 wins (in 1v3 the 双牛鬼 alone, R34), named with its seats; after an
    escape nobody wins (R35)."""
    expected = {
        "sweep": {"zh": "胜方：红方 — 你（座位0）、下家（座位1）",
                  "en": "Winner: Red side — You (seat 0) and Right (seat 1)"},
        "escape": {"zh": "你（座位0）逃跑，本局立即结束",
                   "en": "You (seat 0) escaped: the game ended at once"},
        "double": {"zh": "胜方：双牛鬼 — 对家（座位2）", "en": "Winner: Double Niugui — Across (seat 2)"},
    }
    for case, lines in expected.items():
        view = final_view(CASES[case])
        assert tv.plain(tv.winner_line(view, lang)) == lines[lang], case
