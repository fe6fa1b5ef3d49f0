"""Issue 28, point 6 in the terminal: at 80 columns a saved record's path never breaks inside a
name: a line that would not fit says its words on one line and gives the path alone on the next."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from niugui.bots import load_bot
from niugui.cli import play


def said(tmp_path: Path, path: Path, lang: str, width: int) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, force_terminal=False)
    session = play.Session(
        bots={seat: load_bot("basic", seed=seat) for seat in (1, 2, 3)},
        specs=dict.fromkeys((1, 2, 3), "basic"),
        human=0, lang=lang, seed=1, save_dir=tmp_path, console=console, read=lambda prompt: "",
    )
    session.say_path("saved", path)
    return out.getvalue().splitlines()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_long_path_goes_whole_on_its_own_line(tmp_path: Path, lang: str) -> None:
    long = tmp_path / "niugui-records" / "2026-12-05T07-00-00-seed-1234567890" / "game-12.json"
    lines = said(tmp_path, long, lang, 80)
    assert lines == [("牌谱已保存：" if lang == "zh" else "Record saved:"), str(long)]


def test_a_short_path_stays_on_one_line(tmp_path: Path) -> None:
    assert said(tmp_path, Path("r/game1.json"), "en", 80) == ["Record saved: r/game1.json"]
