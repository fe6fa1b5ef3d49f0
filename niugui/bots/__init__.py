"""Bots: players that see only a seat's view. See :mod:`niugui.bots.base` for the interface."""

from .base import (
    BUILTIN,
    Action,
    Bot,
    Decision,
    View,
    choose_checked,
    choose_safely,
    fallback_action,
    is_legal,
    load_bot,
)

__all__ = [
    "BUILTIN",
    "Action",
    "Bot",
    "Decision",
    "View",
    "choose_checked",
    "choose_safely",
    "fallback_action",
    "is_legal",
    "load_bot",
]
