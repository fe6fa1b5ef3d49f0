"""Club rooms (issue 29): ``create_table`` with ``settings.club`` — only a member creates one, the
club's preset settings apply, the club's open rooms are capped — and the room remembered in the store
(so that the club's sessions and standings count its games).

>>> from niugui.server.directory import Directory
>>> directory = Directory()
>>> directory.roster.put_club("c1", {"games": 2}); directory.roster.set_role("c1", "ann", "member")
>>> rooms = ClubRooms(directory, lambda table, club: None, max_rooms=1)
>>> rooms.settings("ann", TableSettings(club="c1")).games
2
>>> rooms.allows("c1", "bots"), rooms.allows(None, "bots")
(True, True)
>>> rooms.settings("eve", TableSettings(club="c1"))
Traceback (most recent call last):
niugui.server.tables.commands.Fault: no club 'c1'
"""

from __future__ import annotations

from collections.abc import Callable

from .clubs import room_settings
from .directory import Directory
from .protocol import TableSettings
from .tables import Fault


class ClubRooms:
    """Checks and settings of new club rooms; ``record(table, club)`` stores a room (off the loop)."""

    def __init__(self, directory: Directory, record: Callable[[str, str], None], max_rooms: int) -> None:
        self.directory, self.record, self.max_rooms = directory, record, max_rooms

    def settings(self, account_id: str, asked: TableSettings) -> TableSettings:
        """The settings of a new room of ``asked.club`` created by ``account_id``; a Fault when it
        may not (to a non-member the club does not exist)."""
        club = asked.club
        assert club is not None
        roster = self.directory.roster
        preset = roster.preset(club)
        if preset is None or not roster.is_member(club, account_id):
            raise Fault("not_found", f"no club {club!r}")
        open_rooms = len(self.directory.club_rooms(club))
        if self.max_rooms and open_rooms >= self.max_rooms:
            raise Fault("forbidden", f"the club has {open_rooms} open rooms already; play in one of them")
        return room_settings(asked, preset)

    def allows(self, club: str | None, rule: str) -> bool:
        """Whether a room of ``club`` (None: no club's room, which allows everything) allows ``rule``
        (``bots``, ``spectators``), as the club's preset says now (allowed unless it says false)."""
        if club is None:
            return True
        return (self.directory.roster.preset(club) or {}).get(rule) is not False
