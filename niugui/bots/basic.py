"""``basic``: always plays its weakest legal play; never passes when it can play.

On a free lead it leads its weakest card, in the largest combination that card forms (a straight,
a triple or a pair rather than the bare card); when following it plays the weakest play that beats
the current one (the lowest value of its group, R17/R24). It knows nothing of partners.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..cards import CODE_INDEX, mask_of_codes
from ..combos import classify_mask
from .base import Action, Bot, View


class BasicBot(Bot):
    """The weakest legal play, every time.

    >>> from niugui import Game
    >>> game = Game.deal(seed=1, first_drawer=0)
    >>> BasicBot().choose(game.view(game.to_move))   # ♦4 (R26) in its largest combination
    ['D4', 'C5', 'DA', 'D2', 'C3']
    """

    name = "basic"

    def choose(self, view: View) -> Action:
        return basic_action(view)


def _lead_key(play: Iterable[str]) -> tuple[int, int, int]:
    cards = [CODE_INDEX[code] for code in play]
    return (min(cards), -len(cards), max(cards))


def _follow_key(play: Iterable[str]) -> int:
    combo = classify_mask(mask_of_codes(play))
    return combo.value if combo is not None else 1 << 30


def basic_action(view: View) -> Action:
    """The :class:`BasicBot` policy as a function of a view: pass only when nothing beats the play."""
    plays: list[list[str]] = view["legal_plays"]
    if not plays:
        return None
    if view["current"] is None:
        return list(min(plays, key=_lead_key))
    return list(min(plays, key=_follow_key))
