"""The Gymnasium single-seat wrapper (niugui.env.SeatEnv): whole episodes against niugui bots, the
learner's reward is its engine score (R33, R34), bad input is refused clearly."""

from __future__ import annotations

import random

import pytest
from env_helpers import EXTRA

pytest.importorskip("gymnasium", reason=EXTRA)
np = pytest.importorskip("numpy", reason=EXTRA)

from niugui import Game, IllegalMove  # noqa: E402
from niugui.bots import load_bot  # noqa: E402
from niugui.env import SeatEnv  # noqa: E402
from niugui.env.actions import PASS, legal_actions  # noqa: E402


def run_episode(env: SeatEnv, seed: int, rng: random.Random) -> tuple[float, dict[str, object], int]:
    """One whole episode, the learner choosing uniformly among its mask's actions."""
    observation, info = env.reset(seed=seed)
    moves = 0
    while True:
        assert env.observation_space.contains(observation)
        mask = observation["action_mask"]
        assert env.game is not None and env.game.to_move == env.seat
        assert list(np.flatnonzero(mask)) == legal_actions(env.game)
        assert np.array_equal(env.action_masks(), mask.astype(bool))
        observation, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        moves += 1
        assert not truncated
        if terminated:
            return float(reward), info, moves
        assert reward == 0.0


@pytest.mark.parametrize("opponent", ["random", "expert"])
def test_R33_R34_whole_episodes_against_a_bot_end_with_the_learners_score(opponent: str) -> None:
    env = SeatEnv(opponents=opponent, seat=None)
    rng = random.Random(opponent)
    seats = set()
    for episode in range(12):
        reward, info, moves = run_episode(env, seed=episode, rng=rng)
        game = env.game
        assert game is not None and game.result is not None and moves > 0
        assert reward == game.result.scores[env.seat] and info["result"] == game.result.to_dict()
        # the learner made exactly its seat's moves; the bots made the others'
        assert moves == sum(1 for seat, kind, *_ in game.action_log() if seat == env.seat)
        seats.add(env.seat)
    assert len(seats) > 1  # seat=None: the learner's seat changes between episodes


def test_three_different_opponents_and_a_bot_instance() -> None:
    env = SeatEnv(opponents=["random", "basic", load_bot("expert", seed=1)], seat=2)
    reward, _, _ = run_episode(env, seed=3, rng=random.Random(0))
    assert env.game is not None and env.game.result is not None
    assert reward == env.game.result.scores[2]


def test_the_same_seed_plays_the_same_episode() -> None:
    records = []
    for _ in range(2):
        env = SeatEnv(opponents="expert", seat=1)
        run_episode(env, seed=11, rng=random.Random(5))
        assert env.game is not None
        records.append(env.game.to_record())
    assert records[0] == records[1]


def test_an_episode_can_start_from_a_given_game() -> None:
    game = Game.deal(seed=8, first_drawer=2)
    env = SeatEnv(opponents="random", seat=game.to_move)
    env.reset(options={"game": game})
    assert env.game is not None and env.game.to_record()["deck"] == game.to_record()["deck"]
    assert env.game is not game  # a copy: the caller's game is not changed


def test_bad_input_is_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        SeatEnv(opponents="nobody")
    with pytest.raises(ValueError, match="three"):
        SeatEnv(opponents=["random", "random"])
    with pytest.raises(ValueError, match="seat"):
        SeatEnv(seat=4)
    env = SeatEnv(opponents="random", seat=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    observation, _ = env.reset(seed=1)
    assert env.game is not None
    if env.game.can_pass():
        illegal = next(i for i in range(PASS) if not observation["action_mask"][i])
    else:
        illegal = PASS
    with pytest.raises(IllegalMove):
        env.step(illegal)
