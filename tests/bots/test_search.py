"""The search bot (niugui.bots.search): legal, decisive when the answer is plain, deterministic."""

from __future__ import annotations

import json
import time

import pytest
from bot_positions import positions

from niugui import Game
from niugui.bots import is_legal, load_bot
from niugui.bots.search import SearchBot, greedy_policy, rollout, shutdown_pools, value_for


def test_never_an_illegal_action_over_many_positions() -> None:
    """R27: whatever the position, the action is one the view allows (leads, follows, passes)."""
    bot = SearchBot(seed=1, iterations=2, max_candidates=4)
    games = positions(60, seed=2)
    for game in games:
        view = game.view(game.to_move)
        assert is_legal(view, bot.choose(view))


def test_whole_games_between_search_bots_end_legally() -> None:
    """R27–R31: four search bots play whole games; every action is legal and each game ends."""
    for seed in range(2):
        bots = [SearchBot(seed=seed * 4 + s, iterations=2, max_candidates=3) for s in range(4)]
        game = Game.deal(seed=seed, first_drawer=seed)
        while not game.over:
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            action = bots[seat].choose(view)
            assert is_legal(view, action)
            game.pass_turn(seat) if action is None else game.play(action, seat)
        assert game.result is not None


def test_it_goes_out_when_one_play_ends_its_hand() -> None:
    """R30: with a play that empties its hand among other choices, it plays it."""
    found = 0
    for game in positions(400, seed=3):
        seat = game.to_move
        hand = game.hand_mask(seat)
        moves = game.legal_combos()
        if not any(m.mask == hand for m in moves) or len(moves) + game.can_pass() < 2:
            continue
        found += 1
        action = SearchBot(seed=0, iterations=2).choose(game.view(seat))
        assert action is not None and sorted(action) == sorted(game.view(seat)["hand"])
    assert found >= 3


def lead_with_a_sure_card() -> list[Game]:
    """Positions from greedy self-play: a seat on a free lead holds two cards, one higher and one
    lower than every card it has not seen, and every other seat still in holds one card."""
    found = []
    for seed in range(600):
        game = Game.deal(seed=seed, first_drawer=seed % 4)
        while game.to_move is not None:
            seat = game.to_move
            hand = game.hand_mask(seat)
            others = [game.hand_mask(s) for s in range(4) if s != seat and game.hand_mask(s)]
            unseen = sum(others)
            if (game.current is None and hand.bit_count() == 2 and hand.bit_length() > unseen.bit_length()
                    and (hand & -hand) < (unseen & -unseen) and all(o.bit_count() == 1 for o in others)):
                found.append(game.copy())
                break
            action = greedy_policy(game, game.black)
            if action is None:
                game.pass_turn()
            else:
                game.play(action)
    return found


def test_search_leads_the_unbeatable_card_before_going_out() -> None:
    """R27, R29, R30, R32: the rollout policy alone leads its weak card, which the next seat beats
    with its last card and goes out; the search finds that leading the card no one can beat keeps
    the lead (R29) so the seat goes out next, before any seat whose side it cannot know."""
    games = lead_with_a_sure_card()
    assert len(games) >= 3
    for game in games:
        seat = game.to_move
        assert seat is not None
        hand = game.hand_mask(seat)
        policy = greedy_policy(game, game.black)
        assert policy is not None and policy.mask == hand & -hand  # the policy leads its weak card
        top = str(game.hand(seat)[-1])
        assert SearchBot(seed=4, iterations=16, rollout="greedy").choose(game.view(seat)) == [top]


def test_it_needs_nothing_but_the_view() -> None:
    """R11, R12: the bot is handed plain JSON (the view through a JSON round trip, as a network
    client would get it) and decides exactly as from the view itself; it never sees the Game."""
    for game in positions(6, seed=6):
        view = game.view(game.to_move)
        wire = json.loads(json.dumps(view))
        assert SearchBot(seed=3, iterations=3).choose(wire) == SearchBot(seed=3, iterations=3).choose(view)


def test_same_seed_same_actions() -> None:
    """Deterministic for a given seed with a fixed number of iterations and one worker."""
    games = positions(8, seed=4)
    first = [SearchBot(seed=7, iterations=6).choose(g.view(g.to_move)) for g in games]
    again = [SearchBot(seed=7, iterations=6).choose(g.view(g.to_move)) for g in games]
    assert first == again


def test_keeps_to_its_time_budget() -> None:
    """A decision ends near its budget (generous bound: the machine is shared)."""
    bot = load_bot("search", seed=1, budget=0.1)
    assert isinstance(bot, SearchBot)
    game = Game.deal(seed=8, first_drawer=0)
    started = time.perf_counter()
    action = bot.choose(game.view(game.to_move))
    assert time.perf_counter() - started < 1.0  # at least one world is always searched
    assert is_legal(game.view(game.to_move), action) and bot.last_worlds >= 1


def test_two_workers_share_the_worlds() -> None:
    bot = SearchBot(seed=1, iterations=8, workers=2)
    try:
        game = positions(5, seed=5)[0]
        view = game.view(game.to_move)
        assert is_legal(view, bot.choose(view))
    finally:
        shutdown_pools()


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown option"):
        load_bot("search", speed=3)
    with pytest.raises(ValueError, match="budget"):
        load_bot("search", budget=0)
    with pytest.raises(ValueError, match="rollout"):
        load_bot("search", rollout="dice")
    with pytest.raises(ValueError, match="method"):
        load_bot("search", method="magic")


def test_the_rollout_policy_plays_whole_games_legally() -> None:
    """R27–R35: rollouts end with a result whose points are the R33/R34 ones."""
    for seed in range(20):
        game = Game.deal(seed=seed, first_drawer=seed % 4)
        black = game.black
        rollout(game, black, greedy_policy)
        assert game.result is not None
        value = value_for(game, 0)
        assert abs(value - game.result.scores[0]) < 0.1
