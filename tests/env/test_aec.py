"""The PettingZoo AEC environment (niugui.env.env / raw_env): PettingZoo's API test, rewards from the
engine's scores (R33, R34), masks that are exactly the legal plays, and observations that hide every
other seat's cards (R11, R12)."""

from __future__ import annotations

import random
import warnings
from typing import Any

import pytest
from env_helpers import EXTRA, Action, apply, random_action, random_position

pytest.importorskip("pettingzoo", reason=EXTRA)
pytest.importorskip("gymnasium", reason=EXTRA)
np = pytest.importorskip("numpy", reason=EXTRA)

from pettingzoo.test import api_test  # noqa: E402

import niugui.env  # noqa: E402
from niugui import Game, IllegalMove  # noqa: E402
from niugui.cards import cards_of  # noqa: E402
from niugui.env.actions import PASS, decode, encode, legal_actions  # noqa: E402
from niugui.env.observation import OBSERVATION_SIZE, block, encode_view  # noqa: E402

# PettingZoo warns about dict observations for every environment not on its own list of names; a dict
# of "observation" and "action_mask" is exactly its convention for masked actions.
DICT_OBSERVATION_WARNINGS = {
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
    "Observation is not a NumPy array",
}


def test_pettingzoo_api_test_passes() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(niugui.env.env(), num_cycles=1000)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


def test_raw_env_passes_the_api_test_too() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(niugui.env.raw_env(), num_cycles=300)


def play_masked_episode(env: Any, rng: random.Random) -> tuple[list[tuple[int, int]], dict[str, float]]:
    """Run an episode choosing uniformly among the mask's actions; return the (seat, id) actions
    taken and each agent's total reward."""
    taken: list[tuple[int, int]] = []
    totals: dict[str, float] = {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if termination or truncation:
            env.step(None)
            continue
        mask = observation["action_mask"]
        assert observation["observation"].shape == (OBSERVATION_SIZE,) and mask.any()
        action = rng.choice(list(np.flatnonzero(mask)))
        taken.append((int(agent.split("_")[1]), int(action)))
        env.step(action)
    return taken, totals


def test_R33_R34_an_episode_of_masked_actions_ends_with_the_engine_scores() -> None:
    rng = random.Random(4)
    outcomes = set()
    for episode in range(25):
        env = niugui.env.env()
        env.reset(seed=episode)
        dealt = env.unwrapped.game.copy()
        taken, totals = play_masked_episode(env, rng)
        # the same actions, applied to the engine directly, give the same scores
        for seat, action in taken:
            assert dealt.to_move == seat
            apply(dealt, decode(action))
        result = dealt.result
        assert result is not None
        assert totals == {f"player_{s}": float(result.scores[s]) for s in range(4)}
        outcomes.add(result.outcome)
    assert len(outcomes) >= 3, outcomes  # the check covered several kinds of ending, not one


def test_every_mask_bit_is_exactly_a_legal_play() -> None:
    env = niugui.env.raw_env()
    rng = random.Random(9)
    for episode in range(5):
        env.reset(seed=100 + episode)
        game = env.game
        while not game.over:
            mover = f"player_{game.to_move}"
            for agent in env.agents:
                mask = env.observe(agent)["action_mask"]
                if agent != mover:
                    assert not mask.any()  # not its turn: nothing is legal
            mask = env.observe(mover)["action_mask"]
            assert list(np.flatnonzero(mask)) == legal_actions(game)
            assert {decode(i).mask for i in np.flatnonzero(mask) if i != PASS} == {
                c.mask for c in game.legal_combos()
            }
            assert bool(mask[PASS]) == game.can_pass()
            env.step(encode(random_action(game, rng)))


def hidden_reshuffle(game: Game, actions: list[Action], observer: int, rng: random.Random) -> Game:
    """The same deal as ``game`` for ``observer``, and the same public history, but the other seats'
    unplayed cards shuffled among them (each keeping its count)."""
    others = [s for s in range(4) if s != observer]
    pool = [c for s in others for c in cards_of(game.hand_mask(s))]
    rng.shuffle(pool)
    dealt = [0] * 4
    dealt[observer] = sum(1 << c for c in game.dealt(observer))
    for seat in others:
        played = sum(1 << c for c in game.dealt(seat)) & ~game.hand_mask(seat)
        share, pool = pool[: game.count(seat)], pool[game.count(seat) :]
        dealt[seat] = played | sum(1 << c for c in share)
    return Game.from_hands(dealt, game.first_drawer)


def test_R11_R12_a_seat_observes_the_same_whatever_the_others_hold() -> None:
    rng = random.Random(21)
    compared = 0
    changed_hands = 0
    for trial in range(40):
        game, actions = random_position(rng.randrange(2**32), max_actions=120)
        observer = rng.randrange(4)
        twin = hidden_reshuffle(game, actions, observer, rng)
        original = Game.from_hands([sum(1 << c for c in game.dealt(s)) for s in range(4)], game.first_drawer)
        changed_hands += any(twin.hand_mask(s) != original.hand_mask(s) for s in range(4))
        envs = [niugui.env.raw_env(), niugui.env.raw_env()]
        for env, deal in zip(envs, (original, twin), strict=True):
            env.reset(options={"game": deal})
        agent = f"player_{observer}"
        for action in actions:
            seen = [env.observe(agent) for env in envs]
            assert np.array_equal(seen[0]["observation"], seen[1]["observation"]), trial
            assert np.array_equal(seen[0]["action_mask"], seen[1]["action_mask"]), trial
            compared += 1
            for env in envs:
                env.step(encode(action))
            if any(env.game.over for env in envs):
                break  # the black side may differ (R10), so may the end (R31): compare play only
    assert compared > 1000 and changed_hands > 30  # many positions, really different hidden hands


def test_the_observation_shows_the_own_hand_and_the_public_record() -> None:
    game = Game.deal(seed=7, first_drawer=0)
    seat = game.to_move
    assert seat is not None
    game.play("D4")
    observation, _ = encode_view(game.view(seat))
    hand = observation[block("hand")]
    assert sorted(np.flatnonzero(hand)) == [int(c) for c in game.hand(seat)]
    played = observation[block("played")].reshape(4, 54)
    assert list(np.flatnonzero(played[0])) == [0]  # relative seat 0 is the observer, who played ♦4
    assert observation[block("current")][0] == 1 and observation[block("current_kind")][0] == 1
    unseen = observation[block("unseen")]
    assert unseen.sum() == 54 - len(game.hand(seat)) - 1


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    env = niugui.env.env()
    env.reset(seed=2)
    game = env.unwrapped.game
    agent = env.agent_selection
    before = env.observe(agent)
    with pytest.raises(IllegalMove, match="R27"):
        env.step(PASS)  # the opening is a free lead (R27)
    not_held = next(a for a in range(54) if not game.hand_mask(game.to_move) >> a & 1)
    with pytest.raises(IllegalMove, match="R27"):
        env.step(not_held)  # a single the seat does not hold
    assert env.agent_selection == agent
    after = env.observe(agent)
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])


def test_the_same_seed_deals_the_same_episode() -> None:
    runs = []
    for _ in range(2):
        env = niugui.env.env()
        env.reset(seed=77)
        runs.append(play_masked_episode(env, random.Random(1)))
    assert runs[0] == runs[1]


def test_render_shows_only_what_a_spectator_sees() -> None:
    env = niugui.env.raw_env(render_mode="ansi")
    env.reset(seed=5)
    text = env.render()
    assert "14 cards" in text and "to move" in text
    hand = [str(c) for c in env.game.hand(0)]
    assert not any(code in text.split() for code in hand)
