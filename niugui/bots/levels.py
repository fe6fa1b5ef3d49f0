"""The built-in bot levels: one table, from which every other list of levels is derived.

The bot loader (``BUILTIN``), the published ratings (``niugui.ratings.BOT_RATINGS``), the
protocol's ``BotLevel`` and the page's choice of levels (``/api/config``) all read ``LEVELS``; a
level is added here and nowhere else (docs/architecture.md, "add a bot").

>>> [level.name for level in LEVELS]
['random', 'basic', 'expert', 'learned', 'search']
>>> BY_NAME["expert"].label_zh
'高手'
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    """A built-in bot: its short name, import path, published rating (μ, σ) and its words."""

    name: str
    path: str
    mu: float
    sigma: float
    label_zh: str
    label_en: str


LEVELS: tuple[Level, ...] = (
    # Ratings measured in docs/bots.md, "Ratings of the levels": bench/bot_ratings.py --deals 60
    # (1,080 duplicate games between neighbouring levels, search at 0.1 s a move), and learned from
    # its 3,000 duplicate games against expert (bench/rate_from_arena.py), shifted by expert's μ.
    Level("random", "niugui.bots.random_bot:RandomBot", 18.90, 1.62, "随机", "random"),
    Level("basic", "niugui.bots.basic:BasicBot", 24.13, 1.48, "初级", "basic"),
    Level("expert", "niugui.bots.expert:ExpertBot", 26.82, 1.49, "高手", "expert"),
    Level("learned", "niugui.bots.learned:LearnedBot", 27.22, 1.40, "精英", "learned"),
    Level("search", "niugui.bots.search:SearchBot", 30.16, 1.61, "大师", "search"),
)
"""Weakest first, as the page lists them."""

BY_NAME: dict[str, Level] = {level.name: level for level in LEVELS}
NAMES: tuple[str, ...] = tuple(BY_NAME)
