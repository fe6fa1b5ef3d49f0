"""A bot account's consent to invitations (issue 33, finding 6), one registry for its values: who
may invite it and to at most how many unfinished tables at once. Used by the protocol's
``InviteConsent``, the store's columns, the directory's ``Social`` and ``niugui bot-client``'s flags.

>>> INVITE_FROM, DEFAULT_INVITE_FROM, DEFAULT_INVITE_TABLES, MAX_INVITE_TABLES
(('nobody', 'friends', 'anyone'), 'anyone', 4, 50)
"""

from __future__ import annotations

from typing import Literal, get_args

InviteFrom = Literal["nobody", "friends", "anyone"]
"""Who may invite a bot account to a table (its owner's choice)."""
INVITE_FROM: tuple[InviteFrom, ...] = get_args(InviteFrom)
DEFAULT_INVITE_FROM: InviteFrom = "anyone"
"""Until its owner says otherwise."""
DEFAULT_INVITE_TABLES = 4
"""Unfinished tables a bot account may be invited to at once, until its owner says otherwise."""
MAX_INVITE_TABLES = 50
"""The most an owner may allow."""
