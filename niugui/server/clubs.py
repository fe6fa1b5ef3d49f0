"""Clubs in memory (issue 29): who belongs to which club and the rule settings its rooms carry, so
that the visibility rule and ``create_table`` decide on the event loop without reading the store.

The HTTP routes (:mod:`niugui.server.routes.clubs`) write the store first, then this roster; the
server fills it from the store at its start (:meth:`Roster.load`).

>>> roster = Roster()
>>> roster.put_club("c1", {"games": 4})
>>> roster.set_role("c1", "ann", "owner"); roster.set_role("c1", "bob", "pending")
>>> roster.clubs_of("ann"), roster.clubs_of("bob"), roster.is_member("c1", "bob")
(frozenset({'c1'}), frozenset(), False)
>>> room_settings(TableSettings(name="周五", games=8, turn_seconds=30), {"games": 4}).games
4
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .protocol import TableSettings

PRESET_FIELDS = ("turn_seconds", "games", "bot_level", "counter", "rated")
"""The table settings a club saves as its rooms' preset (the owner edits it)."""


def room_settings(asked: TableSettings, preset: dict[str, Any]) -> TableSettings:
    """A club room's settings: those asked, the club's preset over them, and always private (a club's
    room is never in the public lobby; its join code is shown to the club's members)."""
    chosen = {k: v for k, v in preset.items() if k in PRESET_FIELDS}
    return TableSettings.model_validate({**asked.model_dump(), **chosen, "private": True})


class Roster:
    """Each club's members (with their roles) and preset."""

    def __init__(self) -> None:
        self._roles: dict[str, dict[str, str]] = {}  # club -> account -> role
        self._presets: dict[str, dict[str, Any]] = {}
        self._of: dict[str, set[str]] = {}  # account -> clubs where it is a member (not pending)
        self.changes = 0
        """Changes made here (:meth:`put_club`, :meth:`set_role`), not by :meth:`load`: a cluster node's
        read of every club begun before one is stale and is not loaded (its next read is)."""

    def load(self, clubs: Iterable[tuple[str, dict[str, Any], dict[str, str]]]) -> set[tuple[str, str]]:
        """(club id, preset, roles by account) of every club: all that the roster knows, afterwards.
        Returns the (club, account) pairs that were members before and are not any more.

        >>> roster = Roster()
        >>> roster.load([("c1", {}, {"ann": "owner", "bob": "member", "cy": "pending"})])
        set()
        >>> roster.load([("c1", {}, {"ann": "owner"})])
        {('c1', 'bob')}
        >>> roster.changes, roster.set_role("c1", "dan", "member"), roster.changes
        (0, None, 1)
        """
        before = {(club, account) for account, clubs_of in self._of.items() for club in clubs_of}
        changes = self.changes
        self._roles, self._presets, self._of = {}, {}, {}
        for club, preset, roles in clubs:
            self.put_club(club, preset)
            for account, role in roles.items():
                self.set_role(club, account, role)
        self.changes = changes
        return {(club, account) for club, account in before if not self.is_member(club, account)}

    def put_club(self, club: str, preset: dict[str, Any]) -> None:
        self.changes += 1
        self._presets[club] = dict(preset)
        self._roles.setdefault(club, {})

    def preset(self, club: str) -> dict[str, Any] | None:
        """The club's preset; None when there is no such club."""
        return self._presets.get(club)

    def set_role(self, club: str, account: str, role: str | None) -> None:
        """The account's role in the club (None: no longer in it)."""
        self.changes += 1
        roles = self._roles.setdefault(club, {})
        if role is None:
            roles.pop(account, None)
        else:
            roles[account] = role
        mine = self._of.setdefault(account, set())
        if role in (None, "pending"):
            mine.discard(club)
        else:
            mine.add(club)
        if not mine:
            del self._of[account]

    def role(self, club: str, account: str | None) -> str | None:
        return None if account is None else self._roles.get(club, {}).get(account)

    def is_member(self, club: str, account: str | None) -> bool:
        return self.role(club, account) not in (None, "pending")

    def clubs_of(self, account: str | None) -> frozenset[str]:
        """The clubs where the account is a member (pending requests excluded)."""
        return frozenset(self._of.get(account, ())) if account is not None else frozenset()
