"""Issue 30: a board's bots are seeded from the board, so that the same deal and the same earlier plays
get the same answers at every entrant's table, for every level a duplicate event allows (R7 play order,
R8 first drawer by the board's 翻牌); another board's bots may answer otherwise; ``search`` (a clock's
bot) is not allowed."""

from __future__ import annotations

import pytest

from niugui.cards import Card
from niugui.game import Game
from niugui.series import flip_first_drawer
from niugui.server.events.boards import BoardBots, board_seed, new_board
from niugui.server.events.duplicate import LEVELS
from niugui.server.events.store import BoardRow


def played(board: BoardRow, level: str, restart_at: int | None = None) -> list[tuple[int, str, list[str]]]:
    """A whole game of ``board`` by its bots of ``level`` at a table of its own; with ``restart_at``,
    new bots from that action on (as after a restart rebuilt the table)."""
    bots = BoardBots(board_seed(board))
    game = Game.from_deck(board.deck, flip_first_drawer(Card.parse(board.flip)))
    while not game.over:
        if len(game.actions()) == restart_at:
            bots = BoardBots(board_seed(board))
        seat = game.to_move
        assert seat is not None
        bot = bots.for_seat(seat, level)
        assert bot is not None
        action = bot.choose(game.view(seat))
        if action is None:
            game.pass_turn(seat)
        else:
            game.play(action, seat)
    return [(seat, kind, [str(c) for c in cards]) for seat, kind, cards in game.actions()]


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_board_gets_the_same_answers(level: str) -> None:
    board = new_board("e1", 1)
    assert played(board, level) == played(board, level)


@pytest.mark.parametrize("level", LEVELS)
def test_new_bots_mid_board_answer_the_same(level: str) -> None:
    """After a restart (or a cluster node's takeover) the board's bots are made anew mid-game: they
    answer as the first ones would have (a generator that ran on from the seed would not)."""
    board = new_board("e1", 2)
    whole = played(board, level)
    assert played(board, level, restart_at=len(whole) // 2) == whole


def test_the_levels_of_a_duplicate_event() -> None:
    assert "search" not in LEVELS and {"basic", "expert"} <= set(LEVELS)
