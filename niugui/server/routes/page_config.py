"""``GET /api/config``: what the page offers and checks, read from the server's own declarations so
that the page never keeps a second copy — the bot levels (``niugui.bots.levels``) with their words
and ratings, the default level, and the turn timer's default and limits (``niugui.server.timer``).

>>> page = page_config()
>>> page["default_bot_level"], page["turn_seconds"]["default"]
('expert', 20.0)
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from niugui.bots.levels import LEVELS
from niugui.ratings import BOT_RATINGS

from .. import timer
from ..protocol import TableSettings

router = APIRouter()


def page_config() -> dict[str, Any]:
    """The page's settings, all derived (nothing here is written twice)."""
    return {
        "bot_levels": [
            {
                "name": level.name,
                "words": {"zh": level.label_zh, "en": level.label_en},
                "rating": BOT_RATINGS[level.name].shown,
            }
            for level in LEVELS
        ],
        "default_bot_level": TableSettings.model_fields["bot_level"].default,
        "turn_seconds": {
            "default": timer.TURN_SECONDS_DEFAULT,
            "min": timer.TURN_SECONDS_MIN,
            "max": timer.TURN_SECONDS_MAX,
        },
        "quick_turn_seconds": {"min": timer.QUICK_TURN_SECONDS_MIN, "max": timer.QUICK_TURN_SECONDS_MAX},
        "autoplay_after_timeouts": timer.AUTOPLAY_AFTER_TIMEOUTS,
    }


@router.get("/api/config")
def config() -> dict[str, Any]:
    """The bot levels, the default level and the turn timer's limits (the page reads them at start)."""
    return page_config()
