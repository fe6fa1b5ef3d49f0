"""The turn timer's default and limits, declared once (docs/protocol.md, "Turn timer").

The protocol's :class:`~niugui.server.protocol.TableSettings` and
:class:`~niugui.server.protocol.QuickPlay` take their bounds from here, quick play its default
(:class:`niugui.server.config.Community`), and the table's commands the count of timeouts that puts a
seat in 托管. This module imports nothing, so every layer may read it.

>>> TURN_SECONDS_MIN <= TURN_SECONDS_DEFAULT <= TURN_SECONDS_MAX
True
>>> TURN_SECONDS_MIN <= QUICK_TURN_SECONDS_MIN <= TURN_SECONDS_DEFAULT <= QUICK_TURN_SECONDS_MAX
True
"""

from __future__ import annotations

from typing import Final

TURN_SECONDS_DEFAULT: Final = 20.0
"""A table's turn timer when its creator sets none, and quick play's when nobody asks for one."""
TURN_SECONDS_MIN: Final = 0.5
"""The shortest turn timer a table may have."""
TURN_SECONDS_MAX: Final = 600
"""The longest turn timer a table may have."""
QUICK_TURN_SECONDS_MIN: Final = 5
"""The shortest turn timer a quick-play player may ask for (whole seconds)."""
QUICK_TURN_SECONDS_MAX: Final = 120
"""The longest turn timer a quick-play player may ask for (whole seconds)."""
AUTOPLAY_AFTER_TIMEOUTS: Final = 2
"""Turns in a row a seat's timer runs out on before the seat stays in 托管."""
