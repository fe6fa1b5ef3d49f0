"""Dissolve by vote (解散, issue 29) at a live table in-process: proposed, agreed by every seated
person, refused, run out, and kept across a restart in the middle of the vote. Never an escape
(R35 does not apply): nobody loses 9, the totals so far stand (R36)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from table_harness import Rig, client, play_out, rig, seated_table

from niugui.server.tables import Fault, Table
from niugui.server.tables.clock import DISSOLVE_SECONDS


def kinds(r: Rig, table: Table) -> list[dict[str, Any]]:
    return [json.loads(e.payload) for e in r.store.events(table.id) if e.kind.startswith("dissolve")]


def no_escape(r: Rig, table: Table) -> None:
    assert not [e for e in r.store.events(table.id) if e.kind == "escape"]


def test_a_dissolve_agreed_by_all_after_game_1_ends_the_session_with_its_totals(tmp_path: Path) -> None:
    r = rig(tmp_path)
    table, (ann, bob) = seated_table(r, humans=2, games=4)
    play_out(r, table, [ann, bob])
    totals = list(table.state.series.totals)
    r.call(table.dissolve, ann, True)
    assert table.state.vote is not None and table.state.status == "between"
    sent = [m for m in bob.messages if m["type"] == "event"][-1]
    assert sent["event"] == {"kind": "dissolve_proposed", "seat": 0, "seconds": DISSOLVE_SECONDS}
    assert sent["state"]["dissolve"]["voters"] == [0, 1] and sent["state"]["dissolve"]["agreed"] == [0]
    with pytest.raises(Fault, match="agreed already"):
        r.call(table.dissolve, ann, True)
    r.call(table.dissolve, bob, True)
    assert table.state.status == "finished" and table.state.dissolved and table.state.vote is None
    assert [e["kind"] for e in kinds(r, table)] == ["dissolve_proposed", "dissolve_vote", "dissolve_ended"]
    assert kinds(r, table)[-1]["outcome"] == "agreed"
    last = json.loads(r.store.events(table.id)[-1].payload)
    assert last == {"kind": "table_finished", "totals": totals} and sum(totals) == 0  # R36
    no_escape(r, table)
    assert all(slot.player is not None for slot in table.state.seats)  # nobody was made to leave


def test_one_refusal_cancels_the_vote_and_the_session_goes_on(tmp_path: Path) -> None:
    r = rig(tmp_path)
    table, (ann, bob) = seated_table(r, humans=2, games=4)
    play_out(r, table, [ann, bob])
    with pytest.raises(Fault, match="no dissolve vote is open"):
        r.call(table.dissolve, bob, False)
    r.call(table.dissolve, ann, True)
    r.call(table.dissolve, bob, False)
    assert [e.get("outcome") for e in kinds(r, table)] == [None, None, "refused"]
    assert table.state.vote is None and not table.state.dissolved
    r.call(table.ready, ann)
    r.call(table.ready, bob)
    assert table.state.status == "playing" and table.state.game_no == 2
    with pytest.raises(Fault, match="propose again in"):  # one proposal per seat per minute
        r.call(table.dissolve, ann, True)
    r.clock.advance(DISSOLVE_SECONDS + 1)
    assert not table.state.dissolved and table.state.vote is None  # no stale timer fired


def test_the_vote_runs_out_after_60_seconds(tmp_path: Path) -> None:
    r = rig(tmp_path, ready_seconds=0.0)
    table, (ann, bob) = seated_table(r, humans=2, games=4)
    play_out(r, table, [ann, bob])
    r.call(table.dissolve, bob, True)
    r.clock.advance(DISSOLVE_SECONDS - 1)
    assert table.state.vote is not None
    r.clock.advance(2)
    assert table.state.vote is None
    assert kinds(r, table)[-1] == {"kind": "dissolve_ended", "outcome": "expired"}
    assert table.state.status == "between"


def test_a_restart_in_the_middle_of_a_vote_keeps_it(tmp_path: Path) -> None:
    r = rig(tmp_path)
    table, (ann, bob, cat) = seated_table(r, humans=3, games=4)
    play_out(r, table, [ann, bob, cat])
    r.call(table.dissolve, ann, True)
    r.call(table.dissolve, bob, True)
    r.hub.close()

    again = rig(tmp_path, store=r.store, ready_seconds=0.0)
    again.hub.restore()
    restored = again.hub.tables[table.id]
    vote = restored.state.vote
    assert vote is not None and vote.agreed == {0, 1} and vote.proposer == 0
    again.call(restored.dissolve, cat, True)
    assert restored.state.status == "finished" and restored.state.dissolved
    again.hub.close()


def test_after_a_restart_the_vote_still_runs_out(tmp_path: Path) -> None:
    r = rig(tmp_path, ready_seconds=0.0)  # nobody freed for not getting ready meanwhile
    table, (ann, bob) = seated_table(r, humans=2, games=4)
    play_out(r, table, [ann, bob])
    r.call(table.dissolve, ann, True)
    r.hub.close()
    again = rig(tmp_path, store=r.store, ready_seconds=0.0)
    again.hub.restore()
    restored = again.hub.tables[table.id]
    vote = restored.state.vote
    assert vote is not None
    again.clock.advance(vote.since + DISSOLVE_SECONDS - again.clock.now() - 1)  # the stored time counts
    assert restored.state.vote is not None
    again.clock.advance(2)
    assert restored.state.vote is None and kinds(again, restored)[-1]["outcome"] == "expired"
    again.hub.close()


def test_bots_do_not_vote_and_a_dissolve_during_a_game_ends_the_session_after_it(tmp_path: Path) -> None:
    r = rig(tmp_path)
    table, (ann,) = seated_table(r, humans=1, games=4)
    assert table.state.status == "playing"
    r.call(table.dissolve, ann, True)  # the only person seated: agreed at once
    assert table.state.dissolved and table.state.status == "playing"
    play_out(r, table, [ann])
    assert table.state.status == "finished" and table.state.series.games == 1
    no_escape(r, table)


def test_who_may_not_dissolve(tmp_path: Path) -> None:
    r = rig(tmp_path)
    table, (ann, bob) = seated_table(r, humans=2, games=1)
    with pytest.raises(Fault, match="only a seated player"):
        r.call(table.dissolve, client(9), True)
    play_out(r, table, [ann, bob])
    assert table.state.status == "finished"
    with pytest.raises(Fault, match="no session to dissolve"):
        r.call(table.dissolve, ann, True)


def test_a_seat_in_autoplay_does_not_vote(tmp_path: Path) -> None:
    r = rig(tmp_path)
    table, (ann, bob) = seated_table(r, humans=2, games=4)
    r.call(table.set_autoplay, bob, True)  # 托管: not asked
    r.call(table.dissolve, ann, True)
    assert table.state.dissolved and table.state.vote is None
    assert [e.get("outcome") for e in kinds(r, table)] == [None, "agreed"]
    r.call(table.set_autoplay, bob, False)
    play_out(r, table, [ann, bob])
    assert table.state.status == "finished" and table.state.series.games == 1
