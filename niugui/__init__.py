"""河池牛鬼 (Hechi Niugui): the rules engine and its public API.

>>> import niugui
>>> game = niugui.Game.deal(seed=42, first_drawer=0)
>>> game.to_move in range(4) and game.result is None
True
"""

from .cards import CARDS, Card, parse_cards
from .combos import Combo, classify
from .game import Game, IllegalMove, RecordError, Result

__all__ = [
    "CARDS",
    "Card",
    "Combo",
    "Game",
    "IllegalMove",
    "RecordError",
    "Result",
    "classify",
    "parse_cards",
]
__version__ = "0.1.0"
