"""The ``learned`` bot: numpy inference equal to the torch model, legal answers, an input that only
the seat's view decides (R11, R12), shipped weights, and a training run that learns."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from niugui import Game
from niugui.bots import is_legal, load_bot
from niugui.bots.expert import expert_combo
from niugui.bots.knowledge import Tracker, situation_from_game
from niugui.bots.learned import CHECK, LearnedBot, check_worlds
from niugui.bots.sampling import knowledge_of, reconstruct, sample_hands
from niugui.bots.search import (
    POLICIES,
    gain_labels,
    prior_candidates,
    public_tracker,
    rollout,
    value_for,
)
from niugui.cards import BLACK_MASK
from niugui.combos import Combo
from niugui.learn.data import game_samples, make_shard, search_samples
from niugui.learn.features import ACTION_SIZE, CANDIDATES, STATE_SIZE, encode_actions, encode_state
from niugui.learn.model import NAMES, WEIGHTS, Network


def _play(game: Game, moves: int, rng: random.Random) -> None:
    """``moves`` actions: the expert's, or now and then a random legal one."""
    for _ in range(moves):
        if game.to_move is None:
            return
        options = [*game.legal_combos(), *([None] if game.can_pass() else [])]
        action = rng.choice(options) if rng.random() < 0.3 else expert_combo(game)
        if action is None:
            game.pass_turn()
        else:
            game.play(action)


def test_shipped_weights_load_with_numpy_and_are_small() -> None:
    assert WEIGHTS.stat().st_size <= 10 * 1024 * 1024
    net = Network.load()
    scores = net.forward(np.zeros(STATE_SIZE, np.float32), np.zeros((3, ACTION_SIZE), np.float32))
    assert scores.shape == (3,) and np.isfinite(scores).all()


def test_load_bot_knows_learned() -> None:
    assert isinstance(load_bot("learned", seed=1), LearnedBot)
    with pytest.raises(ValueError, match="unknown option"):
        load_bot("learned", depth=3)


def test_learned_never_answers_illegally() -> None:
    rng = random.Random(13)
    asked = 0
    for deal in range(40):
        game = Game.deal(seed=f"learned-legal/{deal}", first_drawer=deal % 4)
        bots = [LearnedBot(margin=m) for m in (-10.0, 0.0, 0.1, 10.0)]  # -10: always the net's pick
        while (seat := game.to_move) is not None:
            view = game.view(seat)
            action = bots[seat].choose(view)
            assert is_legal(view, action), (deal, action)
            asked += 1
            if rng.random() < 0.2:  # leave the expert's paths now and then
                options = [*game.legal_combos(), *([None] if game.can_pass() else [])]
                choice = rng.choice(options)
                action = None if choice is None else [str(c) for c in choice.cards]
            if action is None:
                game.pass_turn(seat)
            else:
                game.play(action, seat)
    assert asked > 1000


def _twins(name: str, deal: int, moves: int | None = None) -> tuple[Game, Game, int]:
    """A game ``moves`` actions in (by default a random number below 40), and a second game the
    seat to move cannot tell from it: the other seats' hidden cards dealt again from the seat's
    knowledge, the same history replayed."""
    rng = random.Random(deal)
    game = Game.deal(seed=f"{name}/{deal}", first_drawer=deal % 4)
    _play(game, rng.randrange(0, 40) if moves is None else moves, rng)
    if game.to_move is None:
        pytest.skip("the game ended before the position")
    seat = game.to_move
    info = knowledge_of(game.view(seat))
    hands = sample_hands(info, rng)
    while hands == [game.hand_mask(s) for s in range(4)] and info.unknown:
        hands = sample_hands(info, rng)
    return game, reconstruct(info, hands), seat


@pytest.mark.parametrize("deal", range(8))
def test_input_is_only_the_seats_view(deal: int) -> None:
    """Two deals that differ only in the other seats' hidden cards give the same input (R11, R12)."""
    game, other, seat = _twins("learned-leak", deal)
    info = knowledge_of(game.view(seat))
    assert other.to_move == seat
    if info.unknown:
        assert any(other.hand_mask(s) != game.hand_mask(s) for s in range(4) if s != seat)
    # The bot, from each game's view of the seat.
    first, second = LearnedBot(), LearnedBot()
    state_a, actions_a, cands_a = first.inputs(game.view(seat))
    state_b, actions_b, cands_b = second.inputs(other.view(seat))
    assert np.array_equal(state_a, state_b) and np.array_equal(actions_a, actions_b)
    assert cands_a == cands_b
    # The training data's path, which reads the Game (situation_from_game), sees the same.
    sit_a = situation_from_game(game, Tracker(game.first_drawer))
    sit_b = situation_from_game(other, Tracker(other.first_drawer))
    assert np.array_equal(encode_state(sit_a), state_a) and np.array_equal(encode_state(sit_b), state_a)
    lead, choice = game.current is None, expert_combo(game)
    cands = prior_candidates(sit_a.hand, game.legal_combos(), lead, game.can_pass(), choice, CANDIDATES)
    assert np.array_equal(encode_actions(sit_a, cands), actions_a)


def test_training_samples_are_consistent() -> None:
    states, labels = game_samples(seed=5, index=0)
    assert states and labels
    for position, row, advantage in labels:
        assert 0 <= position < len(states) and row.shape == (ACTION_SIZE,)
        assert advantage == int(advantage) and -15 <= advantage <= 15  # a score difference (R33, R34)
    expert_rows = [row for _, row, _ in labels if row[1 + 9] == 1.0]  # the "is the expert's choice" flag
    assert len(expert_rows) == len(states)


def _position(deal: int) -> tuple[Game, list[Combo | None]]:
    """A position of expert play with a real choice, and its candidates."""
    rng = random.Random(deal)
    game = Game.deal(seed=f"learned-labels/{deal}", first_drawer=deal % 4)
    while True:
        _play(game, 1 + rng.randrange(4), rng)
        assert game.to_move is not None, "the game ended before a position with a choice"
        seat = game.to_move
        cands = prior_candidates(game.hand_mask(seat), game.legal_combos(), game.current is None,
                                 game.can_pass(), expert_combo(game), CANDIDATES)
        if len(cands) > 2:
            return game, list(cands)


@pytest.mark.parametrize("deal", range(3))
def test_search_labels_come_from_the_seats_view(deal: int) -> None:
    """gain_labels: the expert's own candidate gains exactly 0; sampled from the view alone, the
    labels of two deals that differ only in other seats' hidden cards are identical (R11, R12); the
    true deal as the only world gives each candidate's rollout in the real game minus the expert's."""
    game, cands = _position(deal)
    seat = game.to_move
    assert seat is not None
    info = knowledge_of(game.view(seat))
    rng = random.Random(deal)
    hands = sample_hands(info, rng)
    while hands == [game.hand_mask(s) for s in range(4)] and info.unknown:
        hands = sample_hands(info, rng)
    other = reconstruct(info, hands)
    gains, errors = gain_labels(info, cands, 4, seed=7)
    assert gains[0] == 0.0 and errors[0] == 0.0
    assert all(e >= 0 for e in errors) and any(g != 0 for g in gains)
    assert (gains, errors) == gain_labels(knowledge_of(other.view(seat)), cands, 4, seed=7)
    truth = [game.hand_mask(s) for s in range(4)]
    real, real_errors = gain_labels(info, cands, 1, seed=7, truth=truth)
    black = [s for s in range(4) if (truth[s] | info.played[s]) & BLACK_MASK]
    values = []
    for combo in cands:
        branch = game.copy()
        branch.pass_turn() if combo is None else branch.play(combo)
        rollout(branch, black, POLICIES["fast"], public_tracker(game))
        values.append(value_for(branch, seat))
    assert real == [v - values[0] for v in values] and real_errors == [0.0] * len(cands)


def test_search_samples_are_consistent() -> None:
    states, labels = search_samples(seed=5, index=0, worlds=2)
    assert states and labels
    positions = sorted({p for p, _, _, _ in labels})
    assert positions == list(range(len(states)))
    for _, row, gain, error in labels:
        assert row.shape == (ACTION_SIZE,) and error >= 0 and -30 <= gain <= 30
        if row[1 + 9] == 1.0:  # the "is the expert's choice" flag: its label is exactly 0
            assert gain == 0.0 and error == 0.0
    shard = make_shard(seed=5, number=0, games=1, labels="search", worlds=2)
    assert shard.advantage.tolist() == [np.float32(g) for _, _, g, _ in labels]
    assert (shard.weight == 2).all() and shard.states.shape == (len(states), STATE_SIZE)


NO_TORCH = "the learn extra (torch) is not installed: pip install -e '.[learn]'"


def test_numpy_forward_equals_torch() -> None:
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    from niugui.learn.train import Model

    torch.manual_seed(3)
    model = Model()
    rng = np.random.default_rng(3)
    state = rng.random(STATE_SIZE, dtype=np.float32)
    actions = (rng.random((7, ACTION_SIZE)) < 0.3).astype(np.float32)
    with torch.no_grad():
        expected = model(torch.from_numpy(state).expand(7, -1), torch.from_numpy(actions)).numpy()
    assert np.allclose(model.network().forward(state, actions), expected, atol=1e-5)


def _single() -> Network:
    """A single (not ensemble) network of the shipped shape: the shipped one's first member."""
    return Network.load().singles()[0]


def test_an_ensemble_scores_by_the_mean_of_its_members(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    first = _single()
    second = Network({n: getattr(first, n) + rng.normal(0, 0.05, getattr(first, n).shape).astype(np.float32)
                      for n in NAMES})
    both = Network.average([first, second])
    both.save(tmp_path / "e.npz")
    again = Network.load(tmp_path / "e.npz")
    state = rng.random(STATE_SIZE, dtype=np.float32)
    actions = (rng.random((6, ACTION_SIZE)) < 0.3).astype(np.float32)
    expected = (first.forward(state, actions) + second.forward(state, actions)) / 2
    assert again.members() == 2 and np.allclose(again.forward(state, actions), expected, atol=1e-6)
    singles = again.singles()
    assert [np.array_equal(a.ws, b.ws) for a, b in zip(singles, [first, second], strict=True)] == [True, True]
    three = Network.average([both, first])  # an ensemble joins another as its members
    expected = (2 * first.forward(state, actions) + second.forward(state, actions)) / 3
    assert three.members() == 3 and np.allclose(three.forward(state, actions), expected, atol=1e-6)
    other_shape = {"w2": np.zeros((first.w2.shape[0], 1), np.float32)}
    wider = Network({n: getattr(first, n) for n in NAMES} | other_shape)
    with pytest.raises(ValueError, match="one shape"):
        Network.average([first, wider])


def test_training_can_start_from_saved_weights() -> None:
    pytest.importorskip("torch", reason=NO_TORCH)
    from niugui.learn.train import Model

    net = _single()
    with pytest.raises(ValueError, match="not an ensemble"):
        Model.from_network(Network.average([net, net]))
    again = Model.from_network(net).network()
    names = ("ws", "wa", "b1", "w2", "b2", "w3")
    assert all(np.array_equal(getattr(net, n), getattr(again, n)) for n in names)
    assert float(net.b3) == float(again.b3)


def test_a_tiny_training_run_lowers_its_loss(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    from niugui.learn.train import Settings, join, mean_loss, train

    data = join([make_shard(seed=9, number=0, games=6)])
    empty = join([])
    settings = Settings(seed=1, steps=300, batch=64, eval_every=300)
    model, curve = train((data, empty), settings, tmp_path / "checkpoint.pt")
    before = curve[0]
    assert curve[-1]["step"] == 300 and np.isnan(before["held_loss"])
    from niugui.learn.train import Model

    torch.manual_seed(1)
    untrained = Model()  # the same initial weights the run started from
    assert mean_loss(model, data) < 0.8 * mean_loss(untrained, data)
    # Resuming from the checkpoint at its last step changes nothing.
    again, curve_again = train((data, empty), settings, tmp_path / "checkpoint.pt")
    assert json.dumps(curve_again) == json.dumps(curve)  # NaN never equals itself
    assert all(torch.equal(p, q) for p, q in zip(model.parameters(), again.parameters(), strict=True))


def test_a_spec_can_carry_options() -> None:
    bot = load_bot("learned?margin=0.25", seed=1)
    assert isinstance(bot, LearnedBot) and bot.margin == 0.25
    search = load_bot("search?budget=0.1&belief=0.5&prior=learned")
    assert (search.budget, search.belief, search.prior) == (0.1, 0.5, "learned")  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="key=value"):
        load_bot("search?budget")
    with pytest.raises(ValueError, match="belief"):
        load_bot("search?belief=0")


def test_the_true_deal_of_expert_play_has_full_belief() -> None:
    """Replayed through its own history, the real deal of a game the (fast) expert played weighs 1;
    other samples weigh at most 1, and with epsilon 1 every world weighs 1."""
    from niugui.bots.belief import weigh
    from niugui.bots.expert import FAST

    game = Game.deal(seed="belief/1", first_drawer=1)
    tracker = Tracker(game.first_drawer)
    for _ in range(30):
        action = expert_combo(game, FAST, tracker)
        game.pass_turn() if action is None else game.play(action)
    assert game.to_move is not None
    info = knowledge_of(game.view(game.to_move))
    true_weight, world = weigh(info, [game.hand_mask(s) for s in range(4)], 0.5)
    assert true_weight == 1.0 and world.view(game.to_move) == game.view(game.to_move)
    rng = random.Random(2)
    weights = [weigh(info, sample_hands(info, rng), 0.5)[0] for _ in range(20)]
    assert all(0 < w <= 1 for w in weights) and min(weights) < 1
    assert all(weigh(info, sample_hands(info, rng), 1.0)[0] == 1.0 for _ in range(5))


@pytest.mark.parametrize("options", [{"belief": 0.5}, {"prior": "learned"}])
def test_search_variants_answer_legally(options: dict[str, object]) -> None:
    game = Game.deal(seed="search-variants", first_drawer=2)
    bot = load_bot("search", seed=3, iterations=2, **options)
    for _ in range(24):
        if (seat := game.to_move) is None:
            break
        view = game.view(seat)
        action = bot.choose(view)
        assert is_legal(view, action)
        game.pass_turn(seat) if action is None else game.play(action, seat)


def test_the_server_seats_learned_bots() -> None:
    """A table's ``bot_level`` may be ``learned`` (protocol), and its bot seats get the learned bot,
    not the fallback."""
    from niugui.bots.levels import NAMES
    from niugui.server.protocol import TableSettings
    from niugui.server.tables.bots import load_policy

    assert "learned" in NAMES and TableSettings(bot_level="learned").bot_level == "learned"
    assert isinstance(load_policy("learned"), LearnedBot)


def test_weights_carry_their_margin(tmp_path: Path) -> None:
    """A margin saved with the weights is the bot's default; weights without one use MARGIN."""
    from niugui.bots.learned import MARGIN

    net = _single()
    net.margin = 0.35
    net.save(tmp_path / "w.npz")
    again = Network.load(tmp_path / "w.npz")
    assert again.margin == pytest.approx(0.35) and LearnedBot(net=again).margin == pytest.approx(0.35)
    assert LearnedBot(net=again, margin=0.0).margin == 0.0
    net.margin = None
    net.save(tmp_path / "plain.npz")
    assert LearnedBot(net=Network.load(tmp_path / "plain.npz")).margin == MARGIN
    assert Network.load().margin == 0.0  # the shipped weights carry the margin chosen for them


def test_the_loss_weighs_each_label_by_its_worlds() -> None:
    pytest.importorskip("torch", reason=NO_TORCH)
    from niugui.learn.train import join, mean_loss, noise_floor

    shard = make_shard(seed=5, number=0, games=1, labels="search", worlds=2)
    shard.weight[: len(shard.weight) // 2] = 6.0  # a heavier first half
    data = join([shard])
    w, a = shard.weight.astype(np.float64), shard.advantage.astype(np.float64)
    assert mean_loss(None, data) == pytest.approx(float((w * a * a).sum() / w.sum()), rel=1e-5)
    assert mean_loss(None, data) != pytest.approx(float((a * a).mean()), rel=1e-3)
    e = shard.error.astype(np.float64)
    assert noise_floor(data) == pytest.approx(float((w * e * e).sum() / w.sum()), rel=1e-5)


@pytest.mark.parametrize("deal", range(12))
def test_the_check_is_fixed_by_the_seed_and_the_view(deal: int) -> None:
    """The bot is handed only the seat's view, and its check samples worlds from that view
    (``knowledge_of``) with the bot's own generator: two deals that differ only in the other seats'
    hidden cards show the seat one view (R11, R12), and bots of one seed answer it alike, the check
    having run (the generator moved on). ``margin=-10`` makes the network propose at every decision
    with a choice, so the check runs wherever a world fits."""
    moves = 30
    while True:
        game, other, seat = _twins("learned-check", deal, moves)
        if len(LearnedBot().inputs(game.view(seat))[2]) > 1:
            break
        moves += 1  # on to a position with a choice, where the network proposes
    view = game.view(seat)
    assert view == other.view(seat)
    assert check_worlds(CHECK, view) >= 1  # late enough in the deal for the check to run
    first, second = LearnedBot(seed=5, margin=-10), LearnedBot(seed=5, margin=-10)
    assert first.choose(view) == second.choose(other.view(seat))
    assert first.rng.getstate() == second.rng.getstate() != random.Random(5).getstate()


def test_the_check_overrules_proposals_its_rollouts_lose() -> None:
    """With the check, the bot plays the network's proposal or the expert's choice, and it turns
    down some of the proposals a network that always proposes (``margin=-10``) makes; without it, it
    plays every proposal."""
    played = overruled = 0
    for deal in range(30):
        game, _, seat = _twins("learned-check", deal, 28)
        view = game.view(seat)
        state, actions, cands = LearnedBot().inputs(view)
        if len(cands) < 2:
            continue
        unchecked = LearnedBot(margin=-10, check=0)
        proposal = cands[unchecked.proposal(state, actions)]
        expert = None if cands[0] is None else sorted(str(c) for c in cands[0].cards)
        wanted = None if proposal is None else sorted(str(c) for c in proposal.cards)
        assert _sorted(unchecked.choose(view)) == wanted
        checked = _sorted(LearnedBot(seed=deal, margin=-10).choose(view))
        assert checked in (wanted, expert)
        played += 1
        overruled += checked != wanted
    assert played >= 20 and 0 < overruled < played


def _sorted(action: list[str] | None) -> list[str] | None:
    return None if action is None else sorted(action)


def test_check_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="check"):
        LearnedBot(check=-1)
