"""The bot client rebuilds a seat's full view — ``history`` and ``leads`` — from the events and the
views without history that the server sends, exactly as the engine's ``game.view(seat)`` has them;
after a replay (events without views) it knows it must ask for a snapshot."""

from __future__ import annotations

import random
from typing import Any

import pytest

from niugui import Game
from niugui.botclient import TableRun, ws_url
from niugui.bots import load_bot


def frames(seed: int) -> tuple[Game, list[tuple[dict[str, Any], Game]]]:
    """A game of random bots (with an escape now and then, R35) as (event, game after it) pairs."""
    game = Game.deal(seed=seed, first_drawer=seed % 4)
    rng = random.Random(seed)
    bot = load_bot("random", seed=seed)
    events = []
    while not game.over:
        seat = game.to_move
        assert seat is not None
        if rng.random() < 0.004:
            escaper = rng.choice([s for s in range(4) if game.count(s) > 0])
            game.escape(escaper)
            events.append(({"kind": "escape", "seat": escaper, "reason": "left"}, game))
            continue
        action = bot.choose(game.view(seat))
        if action is None:
            game.pass_turn(seat=seat)
            events.append(({"kind": "pass", "seat": seat, "by": "player"}, game))
        else:
            game.play(action, seat=seat)
            played = game.view(None)["history"][-1]["play"]
            events.append(({"kind": "play", "seat": seat, "play": played, "by": "player"}, game))
    return game, events


@pytest.mark.parametrize("seed", range(60))
def test_history_and_leads_kept_from_events_equal_the_engines(seed: int) -> None:
    start = Game.deal(seed=seed, first_drawer=seed % 4)
    runs = []
    for seat in range(4):
        run = TableRun("t", bot=None)
        run.on_frame({"type": "snapshot", "seq": 1, "view": start.view(seat), "state": {"you": seat}})
        runs.append(run)
    _, events = frames(seed)
    replay = Game.deal(seed=seed, first_drawer=seed % 4)
    for seq, (event, _) in enumerate(events, start=2):
        if event["kind"] == "escape":
            replay.escape(event["seat"])
        elif event["kind"] == "pass":
            replay.pass_turn(seat=event["seat"])
        else:
            replay.play(event["play"], seat=event["seat"])
        for seat, run in enumerate(runs):
            view = replay.view(seat, history=False)
            run.on_frame({"type": "event", "seq": seq, "event": event, "view": view, "state": {"you": seat}})
            full = replay.view(seat)
            assert run.synced
            assert (run.history, run.leads) == (full["history"], full["leads"])
            if not full["over"]:
                assert run.bot_view() == full  # what the bot is handed: the engine's own view


def test_a_replay_without_views_asks_for_a_snapshot() -> None:
    game = Game.deal(seed=3, first_drawer=0)
    run = TableRun("t", bot=None)
    run.on_frame({"type": "snapshot", "seq": 1, "view": game.view(0), "state": {"you": 0}})
    seat = game.to_move
    assert seat is not None
    play = game.view(seat)["legal_plays"][0]
    game.play(play, seat=seat)
    event = {"kind": "play", "seat": seat, "play": play, "by": "player"}
    replayed = {"type": "event", "seq": 2, "replay": True, "event": event, "view": None, "state": {"you": 0}}
    run.on_frame(replayed)
    assert not run.synced
    run.on_frame({"type": "snapshot", "seq": 2, "view": game.view(0), "state": {"you": 0}})
    assert run.synced and run.history == game.view(0)["history"]


def test_server_urls() -> None:
    assert ws_url("127.0.0.1:8000") == "ws://127.0.0.1:8000/ws"
    with pytest.raises(ValueError, match="http"):
        ws_url("ftp://example.org")
