"""The history a bot keeps between decisions (knowledge.Tracker, issue 12 point 2) gives exactly what
reading the whole history afresh gives: at every decision of whole games, for bots kept from one game
to the next, for views of several games interleaved, and for the search bot's per-rollout copies."""

from __future__ import annotations

import copy
import random

from niugui import Game
from niugui.bots import load_bot
from niugui.bots.expert import FAST, expert_action, expert_combo
from niugui.bots.knowledge import Tracker, situation_from_game, situation_from_view


def play_expert(game: Game) -> None:
    combo = expert_combo(game)
    if combo is None:
        game.pass_turn()
    else:
        game.play(combo)


def test_a_tracker_kept_across_decisions_and_games_reads_what_a_fresh_read_gives() -> None:
    """One tracker per seat, kept over 12 games in a row (as a server's bot at a table is): every
    situation equals the fresh one, and so does the expert's action."""
    trackers = [Tracker(0) for _ in range(4)]
    decisions = 0
    for deal in range(12):
        game = Game.deal(seed=f"tracking/{deal}", first_drawer=deal % 4)
        while not game.over:
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            assert situation_from_view(view, trackers[seat]) == situation_from_view(view)
            assert expert_action(view, tracker=trackers[seat]) == expert_action(view)
            decisions += 1
            play_expert(game)
    assert decisions > 12 * 40


def test_views_of_interleaved_games_restart_the_tracker() -> None:
    """A tracker handed views of two games by turns (or a view that is not the next one) never mixes
    their histories: each situation equals a fresh read."""
    games = [Game.deal(seed=f"interleaved/{k}", first_drawer=k) for k in range(3)]
    tracker = Tracker(0)
    rng = random.Random(5)
    checked = 0
    while not all(g.over for g in games):
        game = rng.choice([g for g in games if not g.over])
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        assert situation_from_view(view, tracker) == situation_from_view(view)
        checked += 1
        play_expert(game)
    assert checked > 100


def test_a_tracker_that_read_another_game_with_the_same_last_entry_starts_over() -> None:
    """Two games whose histories end in the same entry at the same length (both a pass by the same
    seat) are still told apart, by the counts or the cards seen."""
    seen = 0
    for deal in range(400):
        if seen >= 6:
            break
        first = Game.deal(seed=f"twins/a/{deal}", first_drawer=0)
        second = Game.deal(seed=f"twins/b/{deal}", first_drawer=0)
        for _ in range(deal % 9 + 2):
            for game in (first, second):
                if not game.over:
                    play_expert(game)
        if first.over or second.over:
            continue
        one, two = first.view(first.to_move or 0), second.view(first.to_move or 0)
        if len(one["history"]) != len(two["history"]) or one["history"][-1] != two["history"][-1]:
            continue
        tracker = Tracker(0)
        situation_from_view(one, tracker)
        assert situation_from_view(two, tracker) == situation_from_view(two)
        seen += 1
    assert seen >= 6


def test_game_path_with_one_tracker_per_game_and_copies() -> None:
    """situation_from_game with a tracker kept over a whole game, and with copies of a tracker taken
    mid-game and carried on in copies of the game (as the search bot's rollouts do)."""
    for deal in range(15):
        game = Game.deal(seed=f"tracking/game/{deal}", first_drawer=deal % 4)
        tracker = Tracker(game.first_drawer)
        steps = 0
        while not game.over:
            assert situation_from_game(game, tracker) == situation_from_game(game)
            if steps == 10:  # a copy of the game and of the tracker, played on with FAST
                branch, branch_tracker = game.copy(), tracker.copy()
                while not branch.over:
                    assert situation_from_game(branch, branch_tracker) == situation_from_game(branch)
                    combo = expert_combo(branch, FAST, branch_tracker)
                    if combo is None:
                        branch.pass_turn()
                    else:
                        branch.play(combo)
            play_expert(game)
            steps += 1


def test_the_expert_bot_decides_as_the_stateless_policy_over_whole_games() -> None:
    """ExpertBot (which keeps a tracker) answers exactly expert_action(view) at every decision."""
    for deal in range(8):
        game = Game.deal(seed=f"tracking/bot/{deal}", first_drawer=deal % 4)
        bots = [load_bot("expert") for _ in range(4)]
        while not game.over:
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            action = bots[seat].choose(view)
            assert action == expert_action(view)
            if action is None:
                game.pass_turn()
            else:
                game.play(action)


def test_a_situation_keeps_what_it_was_told_while_the_tracker_reads_on() -> None:
    """A situation built with a tracker (which lends it its tables) and a tracker's copy do not change
    when the tracker reads more of the game, nor the tracker when a copy does."""
    game = Game.deal(seed="tracking/snapshots", first_drawer=1)
    tracker = Tracker(game.first_drawer)
    kept = []
    while not game.over:
        sit = situation_from_game(game, tracker)
        kept.append((sit, copy.deepcopy(sit)))
        if len(kept) == 20:
            branch, fork = game.copy(), tracker.copy()
            while not branch.over:  # the copy reads on alone
                situation_from_game(branch, fork)
                play_expert(branch)
        play_expert(game)
    assert all(sit == snapshot for sit, snapshot in kept)
    assert len(kept) > 40
