"""The table's state, reduce, commands and clock alone: no store, no event loop, no sockets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from table_harness import ManualClock, SeededDealer

from niugui import Game
from niugui.server.protocol import EvDeal, EvTableCreated, TableSettings
from niugui.server.tables import Fault, Step, Stored, TableModel, reduce, turn_due
from niugui.server.tables import commands as cmd
from niugui.server.tables.clock import Clock, Due
from niugui.server.timer import AUTOPLAY_AFTER_TIMEOUTS


class Driver:
    """Applies what commands return the way the glue does (minus the store): reduce, then follow-ups."""

    def __init__(self, seed: int = 3, **settings: Any) -> None:
        self.state = TableModel("t1", creator="a0", code=None)
        self.time = 1000.0
        self.dealer = SeededDealer(seed)
        self.games = 0
        self.apply(
            [Step(EvTableCreated(kind="table_created", settings=TableSettings(**settings), creator="a0"))]
        )

    def apply(self, todo: list[Step], seconds: float = 1.0) -> list[str]:
        """Apply the steps and what they make due; the kinds applied."""
        kinds = []
        while todo:
            self.time += seconds
            for step in todo:
                if isinstance(step.event, EvDeal):
                    self.games += 1
                    step.event.game_id = self.games
                reduce(self.state, Stored(self.state.seq + 1, self.time, step.event, step.deal))
                kinds.append(step.event.kind)
            todo = cmd.follow_up(self.state, self.dealer, self.time)
        return kinds

    def seat_everyone(self, humans: int = 4) -> list[str]:
        for n in range(humans):
            self.apply(cmd.sit(self.state, f"a{n}", f"p{n}", n)[1])
        return self.apply(cmd.fill_bots(self.state, "a0")) if humans < 4 else []

    @property
    def game(self) -> Game:
        assert self.state.game is not None
        return self.state.game

    def mover(self) -> str:
        assert self.game.to_move is not None
        return f"a{self.game.to_move}"


def test_reduce_builds_a_table_from_events_and_derives_the_deadline_from_their_times() -> None:
    d = Driver(turn_seconds=20)
    assert d.seat_everyone() == []  # the fourth seat_taken started the game as a follow-up:
    state = d.state
    assert state.status == "playing" and state.game_no == 1 and state.flip is not None  # 翻牌 (R8)
    assert d.game.first_drawer == state.flip.first_drawer
    assert state.deadline == state.time + 20  # the leader's timer counts from the deal
    assert all(not slot.ready for slot in state.seats)
    deal_time = state.time
    d.apply(cmd.set_autoplay(state, d.mover(), True), seconds=5)
    assert state.deadline is None and turn_due(state) == Due("bot", d.game.to_move or 0, state.turn)
    d.apply(cmd.set_autoplay(state, d.mover(), False), seconds=5)
    assert state.deadline == deal_time + 20  # the same turn again: no fresh time (no stalling)
    d.apply(cmd.set_autoplay(state, d.mover(), True), seconds=30)
    d.apply(cmd.set_autoplay(state, d.mover(), False), seconds=1)
    assert state.deadline == state.time + 20  # taken back after its time ran out: a fresh timer


def test_commands_check_with_the_engine_and_change_nothing() -> None:
    d = Driver()
    d.seat_everyone()
    state, game = d.state, d.game
    seq, hands = state.seq, [game.hand_mask(s) for s in range(4)]
    other = next(s for s in range(4) if s != game.to_move)
    with pytest.raises(Fault) as refused:
        cmd.act(state, f"a{other}", None)
    assert refused.value.code == "illegal_move" and refused.value.rule == "R27"
    with pytest.raises(Fault) as refused:
        cmd.act(state, d.mover(), ["XX"])
    assert refused.value.rule == "R6"
    with pytest.raises(Fault) as refused:
        cmd.act(state, d.mover(), None)  # a free lead cannot be passed (R27)
    assert refused.value.rule == "R27"
    with pytest.raises(Fault) as refused:
        cmd.act(state, "stranger", ["D4"])
    assert refused.value.code == "forbidden"
    view = game.view(game.to_move)
    play = cmd.act(state, d.mover(), list(reversed(view["legal_plays"][0])))
    assert [s.event.kind for s in play] == ["play"]
    assert play[0].event.play == view["legal_plays"][0]  # canonical order, as the view spells it  # type: ignore[union-attr]
    assert state.seq == seq and [game.hand_mask(s) for s in range(4)] == hands  # returned, not applied
    with pytest.raises(Fault):
        cmd.sit(state, "late", "late", None)  # a game is in progress


def test_a_whole_game_by_commands_then_an_escape_and_the_table_finishing() -> None:
    d = Driver(games=2)
    d.seat_everyone(humans=2)
    state = d.state
    kinds: list[str] = []
    while state.status == "playing":
        seat = d.game.to_move
        assert seat is not None
        view = d.game.view(seat)
        action = None if view["can_pass"] else view["legal_plays"][0]
        if state.seats[seat].human:
            kinds += d.apply(cmd.act(state, f"a{seat}", action))
        else:
            kinds += d.apply(cmd.bot_action(state, seat, action, "bot"))
    assert kinds[-1] == "game_over" and state.status == "between" and state.series.games == 1
    assert sum(state.series.totals) == 0  # R33/R34
    assert d.apply(cmd.ready(state, "a0")) == ["ready"]
    assert d.apply(cmd.ready(state, "a1"))[-1] == "deal"  # every seat ready (bots are): the next game
    assert state.game_no == 2 and state.status == "playing"
    escaper = 1 if d.game.count(1) else 0
    escaped = d.apply(cmd.vacate(state, escaper, "left"))
    assert escaped == ["escape", "game_over", "seat_left", "table_finished"]  # R35; 2 games played
    assert state.status == "finished" and state.seats[escaper].player is None
    assert d.game.result is not None and d.game.result.scores[escaper] == -9


def test_going_offline_is_autoplay_and_coming_back_ends_it() -> None:
    d = Driver()
    d.seat_everyone()
    state = d.state
    assert d.apply(cmd.went_offline(state, 2)) == ["presence", "autoplay"]
    assert not state.seats[2].online and state.seats[2].autoplay_reason == "offline"
    assert d.apply(cmd.came_online(state, 2)) == ["presence", "autoplay"]
    assert state.seats[2].online and not state.seats[2].autoplay


def test_timeouts_in_a_row_put_the_seat_in_autoplay() -> None:
    d = Driver()
    d.seat_everyone(humans=1)
    state = d.state
    for expiry in range(1, AUTOPLAY_AFTER_TIMEOUTS + 1):
        while d.game.to_move != 0:
            seat = d.game.to_move
            assert seat is not None
            view = d.game.view(seat)
            d.apply(cmd.bot_action(state, seat, None if view["can_pass"] else view["legal_plays"][0], "bot"))
        steps = cmd.timed_out(state, 0)
        assert [s.event.kind for s in steps] == ([] if expiry < AUTOPLAY_AFTER_TIMEOUTS else ["autoplay"])
        d.apply(steps)
        view = d.game.view(0)
        d.apply(cmd.bot_action(state, 0, None if view["can_pass"] else view["legal_plays"][0], "timeout"))
        assert state.seats[0].timeouts == expiry
    assert state.seats[0].autoplay and state.seats[0].autoplay_reason == "timeout"


class Timers:
    def __init__(self) -> None:
        self.armed: list[tuple[float, Due]] = []

    def call_later(self, delay: float, callback: Callable[[Due], None], due: Due, /) -> Any:
        self.armed.append((delay, due))
        return self

    def time(self) -> float:
        return 0.0

    def cancel(self) -> None:
        pass


def test_the_clock_arms_what_is_due_once_and_a_grace_period_per_offline_seat() -> None:
    d = Driver(turn_seconds=20)
    d.seat_everyone(humans=1)
    timers, fired = Timers(), []
    clock = Clock(timers, fired.append, bot_delay=0.5, grace_seconds=60, now=lambda: d.time)
    clock.sync(d.state)
    clock.sync(d.state)  # nothing changed: nothing re-armed
    due = turn_due(d.state)
    assert due is not None and len(timers.armed) == 1 and timers.armed[0][1] == due
    assert timers.armed[0][0] == (0.5 if due.kind == "bot" else pytest.approx(20 - 0))
    clock.sync(d.state, busy=due)  # a bot is choosing for it: nothing armed
    assert clock.armed is None
    d.apply(cmd.went_offline(d.state, 0))
    clock.sync(d.state)
    assert Due("grace", 0) in [armed for _, armed in timers.armed]
    assert (60, Due("grace", 0)) in timers.armed
    clock.stop()


class CountingClock(ManualClock):
    """A :class:`ManualClock` that keeps what each of its timers was armed for."""

    def __init__(self, start: float) -> None:
        super().__init__(start)
        self.arms: list[Due] = []

    def call_later(self, delay: float, callback: Callable[[Due], None], due: Due, /) -> Any:
        self.arms.append(due)
        return super().call_later(delay, callback, due)


def clock_on(manual: ManualClock) -> tuple[Clock, list[Due]]:
    """A table's clock on ``manual`` time (bots 0.5 s, grace 60 s), and what it has said is due."""
    fired: list[Due] = []
    return Clock(manual, fired.append, bot_delay=0.5, grace_seconds=60, now=manual.now), fired


def test_the_turn_timer_is_kept_while_the_deadline_moves_later_and_goes_off_at_the_last() -> None:
    """Every action moves a human's deadline later: the clock keeps the loop's timer it armed (it
    arms none per action) and, when that goes off early, arms itself for the rest; the table is told
    once, at the deadline that holds then."""
    d = Driver(turn_seconds=20)
    d.seat_everyone()
    manual = CountingClock(start=d.time)
    arms = manual.arms
    clock, fired = clock_on(manual)
    clock.sync(d.state)
    assert len(arms) == 1 and arms[0].kind == "timeout"
    for _ in range(5):  # five actions, a second apart: each moves the deadline a second later
        d.apply(cmd.act(d.state, d.mover(), first_action(d.game)))
        manual.advance(d.time - manual.now())
        clock.sync(d.state)
    assert len(arms) == 1 and fired == [], "no timer armed per action, none gone off yet"
    deadline = d.state.deadline
    assert deadline is not None and clock.armed == turn_due(d.state)
    manual.advance(deadline - manual.now() - 0.5)
    assert fired == [] and len(arms) == 2, "the first timer went off early and armed itself for the rest"
    manual.advance(0.5)
    assert fired == [turn_due(d.state)] and clock.armed is None


@pytest.mark.parametrize("step", [-300.0, 300.0])
def test_a_step_of_the_system_clock_neither_postpones_nor_hastens_a_turn_timeout(step: float) -> None:
    """A turn lasts its seconds from the last action (a server setting; the rules have no clock),
    whatever the system's clock does meanwhile: here it steps back or forward after the timer was
    armed, as an NTP correction may."""
    d = Driver(turn_seconds=20)
    d.seat_everyone()
    manual = CountingClock(start=d.time)
    clock, fired = clock_on(manual)
    clock.sync(d.state)
    d.apply(cmd.act(d.state, d.mover(), first_action(d.game)))  # a second later: the deadline moves
    manual.advance(d.time - manual.now())
    clock.sync(d.state)
    assert len(manual.arms) == 1, "the timer armed first is kept, for the old deadline"
    due = turn_due(d.state)
    manual.step_wall(step)
    manual.advance(20 - 0.01)
    assert fired == [], "not before its 20 s"
    manual.advance(0.02)
    assert fired == [due], "at its 20 s"


def first_action(game: Game) -> list[str] | None:
    """A pass when the seat to move may pass, else its first legal play."""
    view = game.view(game.to_move)
    return None if view["can_pass"] else view["legal_plays"][0]


def test_a_turn_due_sooner_than_the_armed_timer_re_arms_it() -> None:
    """From a human's 20 s turn to a bot's 0.5 s one: the timer is armed again, for the sooner time."""
    d = Driver(turn_seconds=20)
    d.seat_everyone(humans=1)
    manual = ManualClock(start=d.time)
    clock, fired = clock_on(manual)
    while d.game.to_move != 0:  # the bots play up to the human's turn
        d.apply(cmd.bot_action(d.state, d.game.to_move, first_action(d.game), "bot"))
    manual.advance(d.time - manual.now())
    clock.sync(d.state)
    assert clock.armed is not None and clock.armed.kind == "timeout"
    d.apply(cmd.act(d.state, "a0", first_action(d.game)))
    manual.advance(d.time - manual.now())
    clock.sync(d.state)
    due = turn_due(d.state)
    assert due is not None and due.kind == "bot" and fired == []
    manual.advance(0.5)
    assert fired == [due]


def test_a_kept_timer_that_finds_nothing_due_tells_the_table_nothing() -> None:
    """The turn's timer stays armed when a bot starts choosing (nothing is due meanwhile): when it
    goes off it tells the table nothing."""
    d = Driver(turn_seconds=20)
    d.seat_everyone()
    manual = ManualClock(start=d.time)
    clock, fired = clock_on(manual)
    clock.sync(d.state)
    due = turn_due(d.state)
    clock.sync(d.state, busy=due)  # 托管's bot is choosing for it: nothing is due
    assert clock.armed is None
    assert manual.advance(25) == 1 and fired == [], "the timer went off and found nothing"
