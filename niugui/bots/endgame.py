"""The two-seat race: when only two seats still hold cards, the game is one of perfect information.

The cards of every seat that went out were all played, so the unseen cards are exactly the other
holder's hand; and the two are always on opposite sides (else the game would be over, R31). Whoever
of them goes out first does better in every case (R33, R34: 小胜 rather than 免炒, 免炒 rather than
a loss, 双牛逃跑 rather than 活抓双牛), so the race is a win-or-lose game that a small search solves.
With two holders a single pass ends a trick (R29), and the last player leads again.

>>> from niugui.cards import mask_of, parse_cards
>>> mine, theirs = mask_of(parse_cards("D5 C5 S2")), mask_of(parse_cards("HA SA H7"))
>>> found, move = race_move(mine, theirs, None)
>>> found, [str(c) for c in move.cards]      # not the pair: ♥A♠A would take it, then ♥7 goes out
(True, ['D5'])
>>> race_move(mask_of(parse_cards("D5 D6")), mask_of(parse_cards("HA")), None)   # lost whatever it does
(False, None)
"""

from __future__ import annotations

from ..combos import Combo
from ..moves import plays

NODE_BUDGET = 200
"""Positions searched per decision before giving up (the caller then plays by its heuristics): about
2 ms of CPU time at most. Each decision searches afresh, so the answer never depends on earlier calls."""


class _OutOfBudget(Exception):
    pass


class _Search:
    __slots__ = ("memo", "nodes")

    def __init__(self) -> None:
        self.memo: dict[tuple[int, int, int], bool] = {}
        self.nodes = 0

    def wins(self, mover: int, other: int, current: Combo | None) -> bool:
        """Whether the seat to move (holding ``mover``) goes out before the other."""
        key = (mover, other, current.mask if current is not None else 0)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > NODE_BUDGET:
            raise _OutOfBudget
        result = self._search(mover, other, current)
        self.memo[key] = result
        return result

    def _search(self, mover: int, other: int, current: Combo | None) -> bool:
        moves = plays(mover, current)
        for combo in moves:
            if combo.mask == mover:
                return True  # go out (R30)
        if current is not None and not self.wins(other, mover, None):
            return True  # pass: the trick ends and the other leads (R29)
        moves.sort(key=lambda c: -c.size)
        return any(not self.wins(other, mover ^ c.mask, c) for c in moves)

    def winning_move(self, mover: int, other: int, current: Combo | None) -> tuple[bool, Combo | None]:
        """(True, a winning action: a play or ``None`` to pass), or (False, None) when every one loses."""
        moves = plays(mover, current)
        for combo in moves:
            if combo.mask == mover:
                return True, combo
        moves.sort(key=lambda c: -c.size)
        for combo in moves:
            if not self.wins(other, mover ^ combo.mask, combo):
                return True, combo
        if current is not None and not self.wins(other, mover, None):
            return True, None
        return False, None


def race_move(mine: int, theirs: int, current: Combo | None) -> tuple[bool, Combo | None]:
    """A winning action in a two-seat race, if one is found within :data:`NODE_BUDGET` positions.

    ``mine`` and ``theirs`` are the two hands (masks); ``current`` the play to beat (``None`` on a
    lead). Returns ``(True, action)`` — a ``Combo`` to play or ``None`` to pass — or
    ``(False, None)`` when the race is lost or too big to solve in budget.
    """
    try:
        return _Search().winning_move(mine, theirs, current)
    except _OutOfBudget:
        return False, None
