"""Issue 28, point 1 in the terminal: above your hand, the side your own dealt hand tells you (R10,
R11) — 黑方 and which black card your partner holds, 双牛鬼 (one against three), or 红方 — on one
line at 60 and 80 columns, in both languages; never in a spectator's screen."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from niugui import Game
from niugui.cli import terminal_view as tv

# Seed 7 deals ♠2 to seat 0 and ♠3 to seat 3; seed 2 deals both to seat 0 (checked below).
DEALS = {"black": (7, 0), "red": (7, 1), "double": (2, 0)}


def dealt_side(game: Game, seat: int) -> str:
    held = {card.code for card in game.dealt(seat)} & {"S3", "S2"}
    return {0: "red", 1: "black", 2: "double"}[len(held)]


@pytest.mark.parametrize("width", [60, 80])
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("side", list(DEALS))
def test_the_side_line_names_your_side_on_one_line(lang: str, side: str, width: int) -> None:
    seed, seat = DEALS[side]
    game = Game.deal(seed=seed, first_drawer=0)
    assert dealt_side(game, seat) == side
    screen = tv.plain(tv.status(game.view(seat), lang, width=width), width=width)
    line = tv.plain(tv.side_line(game.view(seat), lang), width=200)
    assert line in screen.splitlines(), screen  # whole, unwrapped
    assert cell_len(line) <= 60
    word = {"zh": {"black": "黑方", "red": "红方", "double": "双牛鬼"},
            "en": {"black": "Black side", "red": "Red side", "double": "Double Niugui"}}[lang][side]
    assert word in line


def test_a_black_seat_is_told_its_partners_card_even_after_playing_its_own() -> None:
    """Seat 0 holds ♠2 (seed 7): its partner holds ♠3, still so once ♠2 has left its hand (R11)."""
    game = Game.deal(seed=7, first_drawer=0)
    while "S2" not in game.view(0)["marks"][0]:
        assert not game.over, "seat 0 never played ♠2"
        plays = game.legal_plays()
        with_s2 = [p for p in plays if "S2" in {c.code for c in p}]
        if game.to_move == 0 and with_s2:
            game.play(with_s2[0])
        elif game.can_pass():
            game.pass_turn()
        else:
            game.play(plays[0])
    view = game.view(0)
    assert "S2" not in view["hand"] and view["side"] == "black"
    assert "牛鬼3" in tv.plain(tv.side_line(view, "zh"))
    assert "3 of spades" in tv.plain(tv.side_line(view, "en"))


def test_a_spectator_screen_has_no_side_line() -> None:
    game = Game.deal(seed=7, first_drawer=0)
    view = game.view(None)
    assert tv.side_line(view, "zh") is None
    for lang in ("zh", "en"):
        screen = tv.plain(tv.status(view, lang, width=80), width=80)
        assert not any(word in screen for word in ("黑方", "红方", "双牛鬼", "Black side", "Red side"))
