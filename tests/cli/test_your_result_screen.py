"""Issue 28, point 2 in the terminal: the game-over screen speaks to you — 你赢了 / 你输了 with your
change, 不输不赢, or the escape (yours: -9; another's: no score for you) — with the outcome's plain
meaning beside its name and your own row marked; from every seat, in both languages, fitting 60×30
and 80×24 (R32–R35)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from niugui import Game
from niugui.cli import terminal_view as tv
from niugui.cli.i18n import outcome_plain

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ["sample-game.json", "one-against-three.json", "escaped.json"]
WORDS = {
    "zh": {"won": "你赢了", "lost": "你输了", "draw": "不输不赢", "escaped": "你逃跑了",
           "unscored": "本局你不计分"},
    "en": {"won": "You won", "lost": "You lost", "draw": "You drew", "escaped": "You escaped",
           "unscored": "no score for you"},
}


def game_of(example: str) -> Game:
    return Game.from_record(json.loads((ROOT / "examples" / example).read_text(encoding="utf-8")))


def verdict(result: dict[str, Any], seat: int) -> str:
    change = result["scores"][seat]
    if result["outcome"] == "escape":
        return "escaped" if change < 0 else "unscored"
    return "won" if change > 0 else "lost" if change < 0 else "draw"


@pytest.mark.parametrize("size", [(60, 30), (80, 24)], ids=["60x30", "80x24"])
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("example", EXAMPLES)
def test_the_end_screen_tells_each_seat_its_result(example: str, lang: str, size: tuple[int, int]) -> None:
    width, height = size
    game = game_of(example)
    for seat in range(4):
        view = game.view(seat)
        result = view["result"]
        console = Console(file=io.StringIO(), width=width, height=height, color_system=None)
        console.print(tv.result_panel(view, lang, result["scores"], 1, width=width, height=height))
        lines = [line.rstrip() for line in console.file.getvalue().splitlines()]  # type: ignore[attr-defined]
        assert len(lines) + tv.RESULT_FOOTER_LINES <= height, "\n".join(lines)
        assert max(cell_len(line) for line in lines) <= width
        said = lines[1]  # right under 本局结束 / Game over
        assert WORDS[lang][verdict(result, seat)] in said, (seat, said)
        change = result["scores"][seat]
        if change:
            assert f"{change:+d}" in said
        assert outcome_plain(lang, result["outcome"]) in "\n".join(lines)


def test_your_row_is_marked_and_a_spectator_gets_no_personal_line() -> None:
    game = game_of("sample-game.json")
    for seat in range(4):
        panel = tv.result_panel(game.view(seat), "en", [0, 0, 0, 0], 1)
        table = next(r for r in panel.renderables if isinstance(r, Table))
        marked = [n for n, row in enumerate(table.rows) if "reverse" in str(row.style)]
        assert marked == [seat]
    spectator = game.view(None)
    assert tv.personal_line(spectator, "zh") is None
    text = tv.plain(tv.result_panel(spectator, "zh", [0, 0, 0, 0], 1))
    assert not any(word in text for word in WORDS["zh"].values())
