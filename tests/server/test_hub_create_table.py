"""``Hub.create_table`` makes a table as the ``create_table`` request does (issue 32, one path): a club's
room is checked there too (issue 29). Before, it called the table factory directly and skipped the
club's checks that the handler made."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_harness import client, rig

from niugui.server.protocol import TableSettings
from niugui.server.tables import Fault


def test_hub_create_table_checks_a_clubs_room_as_the_handler_does(tmp_path: Path) -> None:
    r = rig(tmp_path)
    owner, stranger = client(0), client(1)
    for c in (owner, stranger):
        r.hub.connect(c)
    r.hub.directory.roster.load([("c1", {"games": 4}, {owner.account_id: "owner"})])
    asked = TableSettings(name="周五", games=8, club="c1")
    with pytest.raises(Fault) as refused:
        r.hub.create_table(stranger, asked, lambda _a: None)  # to a non-member the club does not exist
    assert refused.value.code == "not_found"
    assert not r.hub.tables
    room = r.hub.create_table(owner, asked, lambda _a: None)
    settings = room.state.settings
    assert (settings.club, settings.games, settings.private) == ("c1", 4, True)  # the club's preset
    assert list(r.hub.tables) == [room.id]
