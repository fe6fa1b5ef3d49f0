"""The bot interface (niugui.bots.base): a bot gets only a view, and a failing bot never stalls a game."""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

import pytest

from niugui import Game
from niugui.bots import Bot, choose_checked, choose_safely, fallback_action, is_legal, load_bot
from niugui.bots.base import View, can_interrupt

JSON_TYPES = (dict, list, str, int, float, bool, type(None))


def plain(value: Any) -> bool:
    """Only JSON data: no Game, Card, Combo or any other object can hide in the view."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(plain(v) for v in value)
    return type(value) in JSON_TYPES


class SpyBot(Bot):
    """Keeps every argument it is handed and plays the first legal play."""

    name = "spy"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed, **options)
        self.seen: list[Any] = []

    def choose(self, view: View) -> list[str] | None:
        self.seen.append(view)
        return list(view["legal_plays"][0]) if view["legal_plays"] else None


class RaisingBot(Bot):
    name = "raising"

    def choose(self, view: View) -> list[str] | None:
        raise RuntimeError("boom")


class IllegalBot(Bot):
    name = "illegal"

    def choose(self, view: View) -> list[str] | None:
        return ["D4", "S3"]  # never a combination (R25)


class CheatingBot(Bot):
    """Rewrites its view's legal plays to make its own illegal play look legal."""

    name = "cheating"

    def choose(self, view: View) -> list[str] | None:
        view["legal_plays"].append(["D4", "S3"])
        view["can_pass"] = True
        return ["D4", "S3"]


class SlowBot(Bot):
    name = "slow"

    def choose(self, view: View) -> list[str] | None:
        time.sleep(0.05)
        return list(view["legal_plays"][-1])


class StuckBot(Bot):
    """Loops for ever, swallowing ordinary exceptions."""

    name = "stuck"

    def choose(self, view: View) -> list[str] | None:
        while True:
            with contextlib.suppress(Exception):
                time.sleep(0.001)


def test_a_bot_is_handed_the_seats_view_and_nothing_else() -> None:
    """R11, R12: the bot's argument is plain JSON data, equal to game.view(seat), never the game."""
    game = Game.deal(seed=12, first_drawer=1)
    spies = [SpyBot() for _ in range(4)]
    while not game.over:
        seat = game.to_move
        assert seat is not None
        expected = game.view(seat)
        action = choose_safely(spies[seat], game.view(seat))
        handed = spies[seat].seen[-1]
        assert not isinstance(handed, Game)
        assert type(handed) is dict and plain(handed)
        assert json.loads(json.dumps(handed)) == handed == expected
        assert handed["seat"] == seat
        if action is None:
            game.pass_turn()
        else:
            game.play(action)
    assert all(spy.seen for spy in spies)


def test_the_arena_hands_bots_views_only() -> None:
    from niugui import arena

    report = arena.play_game([f"{__name__}:SpyBot", "random"], seed=3, deal=0, arrangement=1)
    assert report.fallbacks == [0, 0]
    assert report.record["result"]["scores"] == report.scores


def test_load_bot_by_short_name_and_import_path() -> None:
    assert load_bot("basic").name == "basic"
    assert load_bot("niugui.bots.expert:ExpertBot").name == "expert"
    assert isinstance(load_bot(f"{__name__}:SpyBot", seed=3), SpyBot)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nobody", "unknown bot 'nobody'"),
        ("no.such.module:Bot", "cannot load bot"),
        ("niugui.bots.base:Nothing", "cannot load bot"),
        ("niugui.game:Game", "is not a niugui.bots.Bot subclass"),
    ],
)
def test_load_bot_names_the_problem(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_bot(spec)


def opening_view() -> View:
    game = Game.deal(seed=5, first_drawer=0)
    return game.view(game.to_move)


def following_view() -> View:
    game = Game.deal(seed=5, first_drawer=0)
    game.play(game.legal_plays()[0])
    return game.view(game.to_move)


def test_fallback_passes_when_allowed_else_plays_the_weakest() -> None:
    """R27: no pass on a free lead; the fallback is then the first (weakest) legal play, with ♦4 (R26)."""
    assert fallback_action(following_view()) is None
    lead = opening_view()
    assert fallback_action(lead) == lead["legal_plays"][0]
    assert "D4" in fallback_action(lead)  # type: ignore[operator]


@pytest.mark.parametrize("bot", [RaisingBot(), IllegalBot(), CheatingBot()])
@pytest.mark.parametrize("make_view", [opening_view, following_view])
def test_a_failing_bot_is_replaced_by_a_legal_fallback(bot: Bot, make_view: Any) -> None:
    view = make_view()
    reference = make_view()
    decision = choose_checked(bot, view)
    assert decision.fallback in ("raised", "illegal")
    assert is_legal(reference, decision.action)
    assert decision.action == fallback_action(reference)


def test_a_slow_bot_over_its_budget_is_replaced() -> None:
    view = following_view()
    decision = choose_checked(SlowBot(), view, budget=0.01)
    assert decision.fallback == "overrun" and decision.action is None
    assert choose_checked(SlowBot(), view, budget=5).fallback is None


@pytest.mark.skipif(not can_interrupt(), reason="needs POSIX interval timers on the main thread")
def test_a_stuck_bot_is_interrupted_at_its_budget() -> None:
    view = opening_view()
    started = time.perf_counter()
    decision = choose_checked(StuckBot(), view, budget=0.05, interrupt=True)
    assert time.perf_counter() - started < 2
    assert decision.fallback == "overrun"
    assert is_legal(view, decision.action)


def test_is_legal_takes_any_card_order_and_nothing_else() -> None:
    view = opening_view()
    play = view["legal_plays"][-1]
    assert is_legal(view, list(reversed(play)))
    assert not is_legal(view, None)  # a free lead: no pass (R27)
    assert not is_legal(view, tuple(play))  # type: ignore[arg-type]
    assert not is_legal(view, ["S3", "S2"])


class HandDumpingBot(Bot):
    """Answers with its whole hand: never legal, and every card of it hidden from the others."""

    name = "hand-dumping"

    def choose(self, view: View) -> list[str] | None:
        return list(view["hand"])


def test_an_illegal_answer_is_logged_without_its_cards(caplog: pytest.LogCaptureFixture) -> None:
    """R12: the log line about a bot's illegal answer must not show cards of its hidden hand."""
    view = opening_view()
    with caplog.at_level("WARNING", logger="niugui.bots"):
        decision = choose_checked(HandDumpingBot(), view)
    assert decision.fallback == "illegal"
    logged = " ".join(record.getMessage() for record in caplog.records)
    assert "illegal" in logged
    assert not [code for code in view["hand"] if code in logged]
