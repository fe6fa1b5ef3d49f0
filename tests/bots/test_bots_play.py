"""Thousands of bot-vs-bot games: no illegal action, no crash, every game ends, for every bot.

Bots are asked directly (not through the fallback), so an illegal answer fails the test.
"""

from __future__ import annotations

import itertools
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from niugui import Game
from niugui.bots import Bot, is_legal, load_bot
from niugui.bots.expert import expert_action, expert_combo
from niugui.bots.knowledge import situation_from_game, situation_from_view

FAST_BOTS = ("random", "basic", "expert")


def play(specs: tuple[str, ...], seed: int, first_drawer: int | None = None) -> Game:
    """One game with the bots seated in order; asserts every answer is legal (R25-R27)."""
    game = Game.deal(seed=seed, first_drawer=first_drawer)
    bots: list[Bot] = [load_bot(spec, seed=seed * 4 + s) for s, spec in enumerate(specs)]
    for _ in range(2000):
        seat = game.to_move
        if seat is None:
            break
        view = game.view(seat)
        action = bots[seat].choose(view)
        assert is_legal(view, action), (specs[seat], seed, action)
        if action is None:
            game.pass_turn(seat)
        else:
            game.play(action, seat)
    assert game.over, "a game of bots must end (R31)"
    return game


def test_thousands_of_games_between_every_pair_of_fast_bots() -> None:
    """R31-R34: 1,890 games over all seatings of every pair of bots, each ending with a legal result."""
    per_pair = {("random", "random"): 600, ("random", "basic"): 360, ("basic", "basic"): 300,
                ("random", "expert"): 240, ("basic", "expert"): 240, ("expert", "expert"): 150}
    games = 0
    for a, b in itertools.combinations_with_replacement(FAST_BOTS, 2):
        seatings = sorted(set(itertools.permutations((a, a, b, b))))
        for deal in range(per_pair[a, b] // len(seatings)):
            for seating in seatings:
                game = play(seating, seed=deal * 31 + games)
                result = game.result
                assert result is not None and sum(result.scores) == 0
                games += 1
    assert games == 1890


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    specs=st.tuples(*[st.sampled_from(FAST_BOTS)] * 4),
    first_drawer=st.integers(0, 3),
)
def test_any_seating_of_bots_plays_a_legal_game(
    seed: int, specs: tuple[str, ...], first_drawer: int
) -> None:
    play(specs, seed, first_drawer)


def test_bots_are_deterministic_for_a_seed() -> None:
    for specs in [("random",) * 4, ("basic", "expert", "random", "expert")]:
        records = [play(specs, seed=77).to_record() for _ in range(2)]
        assert records[0] == records[1]


def test_random_bot_passes_when_allowed_and_varies_with_its_seed() -> None:
    game = Game.deal(seed=4, first_drawer=0)
    game.play(game.legal_plays()[0])
    view = game.view(game.to_move)
    answers = {repr(load_bot("random", seed=s).choose(view)) for s in range(200)}
    assert "None" in answers  # R27: a pass counts as one action when allowed
    assert len(answers) == len(view["legal_plays"]) + 1


def test_the_fast_path_and_the_view_give_the_same_decision() -> None:
    """expert_combo(game) (for search rollouts) decides exactly as expert_action(view)."""
    checked = 0
    for seed in range(40):
        game = Game.deal(seed=seed)
        while not game.over:
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            assert situation_from_game(game) == situation_from_view(view)
            combo = expert_combo(game)
            action = expert_action(view)
            assert (None if combo is None else sorted(str(c) for c in combo.cards)) == (
                None if action is None else sorted(action)
            )
            checked += 1
            if action is None:
                game.pass_turn()
            else:
                game.play(action)
    assert checked > 1000


def test_expert_decides_in_under_10ms_at_p99() -> None:
    """Issue 3: expert p99 < 10 ms. CPU time of this process, so other load on the machine does not count."""
    times = []
    for seed in range(60):
        game = Game.deal(seed=1000 + seed)
        while not game.over:
            view = game.view(game.to_move)
            started = time.process_time()
            action = expert_action(view)
            times.append(time.process_time() - started)
            if action is None:
                game.pass_turn()
            else:
                game.play(action)
    times.sort()
    assert times[int(len(times) * 0.99)] < 0.010
