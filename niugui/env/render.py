"""Text of what a spectator sees (R12), for the environments' ``render()``."""

from __future__ import annotations

from ..game import Game


def spectator_text(game: Game) -> str:
    """Counts, places, the play to beat and whose turn it is — nothing hidden (``game.view(None)``).

    >>> print(spectator_text(Game.deal(seed=7, first_drawer=0)))
    seat 0: 14 cards
    seat 1: 13 cards
    seat 2: 13 cards
    seat 3: 14 cards
    free lead
    to move: seat 2
    """
    view = game.view(None, history=False)
    lines = []
    for seat in range(4):
        place = f", out {view['finish'].index(seat) + 1}" if seat in view["finish"] else ""
        lines.append(f"seat {seat}: {view['counts'][seat]} cards{place}")
    current = view["current"]
    if current is None:
        lines.append("free lead")
    else:
        lines.append(f"to beat: {' '.join(current['play'])} (seat {current['seat']})")
    result = view.get("result")
    if result:
        lines.append(f"over: {result['outcome']}, scores {result['scores']}")
    else:
        lines.append(f"to move: seat {view['to_move']}")
    return "\n".join(lines)
