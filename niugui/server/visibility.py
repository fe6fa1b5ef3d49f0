"""Who may see a table: one pure rule, used by the WebSocket routing, the HTTP routes (ledger,
records, replays) and the lobby's summaries alike.

A public table is anyone's. A private table (and its ledger, records and replays) is only for its
creator, the people who sit or sat at it, a connection that joined it with its code, and whoever
gives its join code now. Codes are compared in constant time (no timing oracle for guesses).
A club's room (issue 29) is only for the club's members (``clubs``: the viewer's clubs) and those
who sit or sat there: its code or a connection that joined with it opens nothing to anyone else.

>>> private = TableFacts("t1", creator="ann", code="abc123", players=frozenset({"bob"}))
>>> [may_see(private, who) for who in ("ann", "bob", "eve", None)]
[True, True, False, False]
>>> may_see(private, "eve", code="abc123"), may_see(private, "eve", code="abc124")
(True, False)
>>> may_see(TableFacts("t2", creator="ann", code=None), None)
True
>>> room = TableFacts("t3", creator="ann", code="abc123", club="c1")
>>> may_see(room, "eve", clubs=frozenset({"c1"})), may_see(room, "eve", code="abc123")
(True, False)
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass


@dataclass(frozen=True)
class TableFacts:
    """What the rule needs of a table: its creator, its join code (None: public) and its players —
    those seated now and, for stored games, those who played there."""

    id: str
    creator: str | None
    code: str | None
    players: frozenset[str] = frozenset()
    club: str | None = None
    """The club whose room this is (None: no club's)."""

    def code_is(self, given: str | None) -> bool:
        """Whether ``given`` is this private table's join code (compared in constant time)."""
        if self.code is None or given is None:
            return False
        return secrets.compare_digest(given.encode(), self.code.encode())


def may_know_code(facts: TableFacts, account_id: str | None) -> bool:
    """Whether the account is the table's creator or one of its players (who are shown its code)."""
    return account_id is not None and (account_id == facts.creator or account_id in facts.players)


def may_see(
    facts: TableFacts,
    account_id: str | None,
    code: str | None = None,
    joined: bool = False,
    clubs: frozenset[str] = frozenset(),
) -> bool:
    """May ``account_id`` (None: nobody signed in) — giving ``code``, or on a connection that already
    ``joined`` the table with its code, a member of ``clubs`` — see the table, its ledger, records and
    replays?"""
    if facts.club is not None:
        return facts.club in clubs or may_know_code(facts, account_id)
    return facts.code is None or joined or may_know_code(facts, account_id) or facts.code_is(code)
