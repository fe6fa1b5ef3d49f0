"""A table is rebuilt from the state stored with its latest deal and the events since (issue 32:
a failover costs the same for a table that has played all evening as for a new one) — and what is
rebuilt is the live table, whatever happened before: series totals (R36), the next first drawer
(R8), 托管, chats, seats taken and left, settings changed."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from table_harness import FakeClient, Rig, play_out, rig, seated_table

from niugui.server.protocol import TableSettings
from niugui.server.store import games
from niugui.server.tables import Fault, Table, TableModel, saved_state


def same_table(rebuilt: TableModel, live: TableModel, table: Table) -> None:
    """Every stored field, the game (its deal and every action) and each seat's frame agree."""
    assert saved_state.dump(rebuilt) == saved_state.dump(live)
    assert rebuilt.deal == live.deal
    assert (rebuilt.game is None) == (live.game is None)
    if rebuilt.game is not None and live.game is not None:
        assert rebuilt.game.to_record() == live.game.to_record()
    for seat in (0, 1, 2, 3, None):
        assert table.fanout.snapshot(rebuilt, seat) == table.fanout.snapshot(live, seat)


def next_game(r: Rig, table: Table, clients: list[FakeClient]) -> None:
    for c in clients:
        if table.state.seat_of(c.account_id) is not None and table.state.status == "between":
            r.call(table.ready, c)


def test_R36_a_table_is_rebuilt_from_its_latest_deal_and_equals_the_live_one(
    tmp_path: Path,
) -> None:
    r = rig(tmp_path, replay_limit=8)
    table, clients = seated_table(r, humans=2)
    for n in range(4):
        play_out(r, table, clients)
        if n == 1:
            r.call(table.chat, clients[1], "hurry")
            r.call(table.update_settings, clients[0], TableSettings(turn_seconds=40, name="evening"))
        next_game(r, table, clients)
    r.call(table.set_autoplay, clients[1], True)
    r.clock.advance(r.config.bot_delay)  # a move or two into the fifth game
    live = table.state
    assert live.status == "playing" and live.series.games == 4 and any(live.series.totals)
    rebuilt = r.hub.loader.rebuild(table.id)
    same_table(rebuilt.state, live, table)
    deal_seq = max(seq for seq, _, payload in table.fanout.recent if '"kind":"deal"' in payload)
    stored = r.store.stored_tables([table.id], recent=8)[table.id]
    assert stored.saved is not None  # only the events since the deal (and the latest 8) are read
    assert stored.events[0].seq == min(deal_seq, live.seq - 7) and stored.events[-1].seq == live.seq
    assert [sent[0] for sent in rebuilt.fanout.recent] == list(range(live.seq - 7, live.seq + 1))


def test_a_table_whose_games_were_stored_before_the_saved_state_replays_from_its_first_event(
    tmp_path: Path,
) -> None:
    r = rig(tmp_path)
    table, clients = seated_table(r, humans=1)
    for _ in range(2):
        play_out(r, table, clients)
        next_game(r, table, clients)
    with r.store.engine.begin() as c:  # as a database migrated from before 0011 has them
        c.execute(games.update().values(table_state=None, state_seq=None))
    rebuilt = r.hub.loader.rebuild(table.id).state
    same_table(rebuilt, table.state, table)
    stored = r.store.stored_tables([table.id], recent=8)[table.id]
    assert stored.saved is None and stored.events[0].seq == 1 and len(stored.games) == 3


@st.composite
def scripts(draw: st.DrawFn) -> list[tuple[str, int]]:
    """What the two people at the table do, step by step: play (the i-th legal play, or pass), chat,
    toggle 托管, leave a seat and sit again, let the bots' time pass, or play the game to its end."""
    kinds = st.sampled_from(
        ["act", "act", "act", "act", "chat", "autoplay", "stand", "wait", "ready", "finish"]
    )
    return draw(st.lists(st.tuples(kinds, st.integers(0, 9)), min_size=20, max_size=160))


def run(r: Rig, table: Table, clients: list[FakeClient], kind: str, n: int) -> None:
    """One scripted step; a refusal (not your turn, not seated...) changes nothing, as on the server."""
    who = clients[n % 2]
    state = table.state
    if kind == "finish":
        for _ in range(1000):
            if table.state.status != "playing":
                return
            run(r, table, clients, "act", n)
        raise AssertionError("a game did not end in 1,000 steps")
    try:
        if kind == "act" and state.game is not None and state.game.to_move is not None:
            seat = state.game.to_move
            mover = next((c for c in clients if state.seat_of(c.account_id) == seat), None)
            if mover is None:
                r.clock.advance(r.config.bot_delay)
                return
            view = state.game.view(seat)
            options: list[Any] = ([None] if view["can_pass"] else []) + view["legal_plays"]
            r.call(table.act, mover, options[n % len(options)])
        elif kind == "chat":
            r.call(table.chat, who, "hurry")
        elif kind == "autoplay":
            seat = state.seat_of(who.account_id)
            r.call(table.set_autoplay, who, seat is None or not state.seats[seat].autoplay)
        elif kind == "stand":
            if state.seat_of(who.account_id) is None:
                r.call(table.sit, who, None)
            else:
                r.call(table.stand, who)
        elif kind == "ready":
            r.call(table.ready, who)
        else:
            r.clock.advance(r.config.bot_delay * (1 + n))
    except Fault:
        pass


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=scripts())
def test_after_any_steps_the_rebuilt_table_equals_the_live_one(tmp_path_factory: Any, script: Any) -> None:
    r = rig(tmp_path_factory.mktemp("saved"))
    table, clients = seated_table(r, humans=2)
    for step, (kind, n) in enumerate(script):
        run(r, table, clients, kind, n)
        if step % 10 == 9 or step == len(script) - 1:
            same_table(r.hub.loader.rebuild(table.id).state, table.state, table)


def test_every_field_of_the_table_but_the_game_its_deal_and_the_origins_is_saved() -> None:
    """The saved fields come from the model itself: a field added to it is saved without an edit."""
    saved = json.loads(saved_state.dump(TableModel("t1", creator="a1", code=None)))
    assert set(saved) == {f.name for f in dataclasses.fields(TableModel)} - {"game", "deal", "origins"}


def test_the_rebuild_bench_runs_and_reports_both_ways() -> None:
    """Smoke test of ``bench/rebuild_bench.py`` (no timing asserted: the figures are in docs/scaling.md)."""
    bench = Path(__file__).resolve().parents[2] / "bench" / "rebuild_bench.py"
    done = subprocess.run(
        [sys.executable, str(bench), "--games", "2", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    row = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\| 2 \| [\d,]+ \| [\d.]+ ms \| [\d.]+ ms \|", row), row
