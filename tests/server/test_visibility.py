"""The one visibility rule (niugui/server/visibility.py), its table of cases, and the same answer from
every door: the WebSocket routing, the lobby's summaries and the HTTP routes."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_harness import FakeClient, rig

from niugui.server.directory import facts_of
from niugui.server.protocol import Play, Sit, TableSettings, Watch
from niugui.server.tables import Answer, Fault
from niugui.server.visibility import TableFacts, may_know_code, may_see

PRIVATE = TableFacts("t1", creator="creator", code="k7m2pq", players=frozenset({"player"}))
PUBLIC = TableFacts("t2", creator="creator", code=None, players=frozenset({"player"}))
# A stored game of a private table: its players are those of its records (and ledger), the table may
# be finished — nobody is seated any more, the rule is the same.
RECORD = TableFacts("t3", creator="creator", code="abcdef", players=frozenset({"player", "left"}))
# A club's room (issue 29): its members see it; its code or a connection that joined with it does not
# open it to anyone else; those who sit or sat there (and its creator) still see it.
ROOM = TableFacts("t4", creator="creator", code="r00mcd", players=frozenset({"player"}), club="c1")
MEMBER, OTHER_CLUB, NONE = frozenset({"c1", "c9"}), frozenset({"c9"}), frozenset[str]()


@pytest.mark.parametrize(
    ("facts", "account", "code", "joined", "seen", "clubs"),
    [
        (PRIVATE, "creator", None, False, True, NONE),
        (PRIVATE, "player", None, False, True, NONE),
        (PRIVATE, "spectator", "k7m2pq", False, True, NONE),  # a spectator with the code
        (PRIVATE, "spectator", None, True, True, NONE),  # ... on the connection that joined with it
        (PRIVATE, "spectator", None, False, False, NONE),  # a spectator without the code
        (PRIVATE, "stranger", "k7m2pQ", False, False, NONE),  # a wrong code (one letter's case)
        (PRIVATE, "stranger", "", False, False, NONE),
        (PRIVATE, None, None, False, False, NONE),  # nobody signed in
        (PRIVATE, None, "k7m2pq", False, True, NONE),  # a record's link with the code
        (RECORD, "left", None, False, True, NONE),  # a private record: one who played there
        (RECORD, "stranger", None, False, False, NONE),
        (PUBLIC, None, None, False, True, NONE),  # a public table, and its finished games: anyone
        (PUBLIC, "stranger", "nonsense", False, True, NONE),
        (ROOM, "member", None, False, True, MEMBER),  # a member of the club
        (ROOM, "member", "r00mcd", True, True, MEMBER),
        (ROOM, "player", None, False, True, NONE),  # sits or sat there (removed from the club since)
        (ROOM, "creator", None, False, True, NONE),
        (ROOM, "stranger", "r00mcd", False, False, NONE),  # the room's code alone: no
        (ROOM, "stranger", None, True, False, NONE),  # nor a connection that joined with it
        (ROOM, "stranger", None, False, False, OTHER_CLUB),  # a member of another club
        (ROOM, None, "r00mcd", False, False, NONE),
        (PUBLIC, "stranger", None, False, True, OTHER_CLUB),  # clubs change nothing elsewhere
        (PRIVATE, "stranger", None, False, False, MEMBER),
    ],
)
def test_the_table_of_cases(
    facts: TableFacts, account: str | None, code: str | None, joined: bool, seen: bool, clubs: frozenset[str]
) -> None:
    assert may_see(facts, account, code, joined, clubs) is seen


def test_only_the_creator_and_players_are_shown_the_code() -> None:
    assert [may_know_code(PRIVATE, who) for who in ("creator", "player", "spectator", None)] == [
        True,
        True,
        False,
        False,
    ]


def test_every_door_of_a_private_table_answers_the_same(tmp_path: Path) -> None:
    """Over the routing: a stranger is told the table does not exist (whether it does or not), the
    holder of the code gets in, and the lobby's summary shows the code to the creator only."""
    r = rig(tmp_path)
    creator, stranger, friend = (
        FakeClient("c", "creator"),
        FakeClient("s", "stranger"),
        FakeClient("f", "friend"),
    )
    for c in (creator, stranger, friend):
        r.hub.connect(c)
    table = r.hub.create_table(creator, TableSettings(private=True), lambda _a: None)
    code = table.state.code
    assert code is not None and facts_of(table).code_is(code)

    def answer(client: FakeClient, message: object) -> Answer | BaseException:
        answers: list[Answer | BaseException] = []
        r.hub.handle(client, message, answers.append)  # type: ignore[arg-type]
        return answers[0]

    refused = [
        answer(stranger, Watch(type="watch", id="1", table=table.id)),
        answer(stranger, Watch(type="watch", id="2", table="nosuchtable")),
        answer(stranger, Play(type="play", id="3", table=table.id, cards=["D4"])),
        answer(stranger, Sit(type="sit", id="4", table=table.id, code="wrong0")),
    ]
    assert all(isinstance(a, Fault) and a.code == "not_found" for a in refused)
    assert len({str(a).replace("nosuchtable", table.id) for a in refused}) == 1  # the same words
    assert isinstance(answer(friend, Watch(type="watch", id="5", table=code)), Answer)  # by the code alone
    played = answer(friend, Play(type="play", id="6", table=table.id, cards=["D4"]))
    assert isinstance(played, Fault) and played.code != "not_found"  # in, though not seated
    summaries = {who: table.fanout.summary(table.state, who).code for who in ("c", "f", "s")}
    assert summaries == {"c": code, "f": None, "s": None}
