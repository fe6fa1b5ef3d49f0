"""The card-location network (issue 31): numpy equal to torch, inputs from the seat's view only
(R11, R12), probabilities that respect what the seat knows (R1, R31), a training run that learns, and
``search?worlds=located`` answering legally without reading hidden cards."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from niugui import Game
from niugui.bots import is_legal, load_bot
from niugui.bots.expert import expert_combo
from niugui.bots.sampling import Knowledge, knowledge_of, reconstruct, sample_hands, sample_located
from niugui.learn.location_features import (
    BLACK_CARDS,
    DECK,
    INPUT_SIZE,
    WEIGHTS,
    LocationNetwork,
    absolute,
    cached_location,
    encode,
    located_probs,
    partner_probs,
    relative,
)

FIXTURE = Path(__file__).with_name("location_fixture.npz")
NO_TORCH = "torch is not installed (the learn extra: pip install -e '.[learn]'); numpy-only checks still ran"


def _position(seed: str, moves: int, first_drawer: int = 0) -> Game:
    """A game ``moves`` actions in: the expert's, or now and then a random legal one."""
    rng = random.Random(seed)
    game = Game.deal(seed=seed, first_drawer=first_drawer)
    for _ in range(moves):
        if game.to_move is None:
            break
        options = [*game.legal_combos(), *([None] if game.can_pass() else [])]
        action = rng.choice(options) if rng.random() < 0.3 else expert_combo(game)
        game.pass_turn() if action is None else game.play(action)
    return game


def _twin(game: Game, seat: int, rng: random.Random) -> Game | None:
    """The same public history and the same hand for ``seat``, other hidden cards elsewhere."""
    info = knowledge_of(game.view(seat))
    truth = [game.hand_mask(s) for s in range(4)]
    for _ in range(20):
        hands = sample_hands(info, rng)
        if hands != truth:
            return reconstruct(info, hands)
    return None


def test_shipped_weights_load_and_are_small() -> None:
    net = LocationNetwork.load()
    assert net.w1.shape[0] == INPUT_SIZE and WEIGHTS.stat().st_size < 2_000_000


def test_numpy_forward_equals_torchs_stored_outputs() -> None:
    """The shipped weights were written with torch's outputs on fixed inputs (the fixture)."""
    with np.load(FIXTURE) as data:
        net = cached_location()
        assert np.allclose(net.logits(data["x"]), data["logits"], atol=1e-4)
        from niugui.learn.location_features import constrain

        probs = constrain(net.logits(data["x"]), data["unseen"], data["log_counts"])
        assert np.allclose(probs, data["probs"], atol=1e-5)


def test_numpy_forward_equals_torch_live() -> None:
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    from niugui.learn.location_train import LocationModel

    torch.manual_seed(5)
    model = LocationModel().eval()  # as played: no dropout
    with torch.no_grad():
        model.l3.weight.normal_()  # not the near-zero start: outputs that differ per card
    x = np.random.default_rng(5).random((6, INPUT_SIZE), dtype=np.float32)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    assert np.allclose(model.network().logits(x), expected, atol=1e-4)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal=st.integers(0, 10_000), moves=st.integers(0, 60), drawer=st.integers(0, 3))
def test_the_input_is_only_the_seats_view(deal: int, moves: int, drawer: int) -> None:
    """Two deals that differ only in the other seats' hidden cards give identical inputs (R11, R12)."""
    game = _position(f"location-leak/{deal}", moves, drawer)
    if game.to_move is None:
        return
    seat = game.to_move
    twin = _twin(game, seat, random.Random(deal))
    if twin is None:
        return  # nothing hidden is left to move
    assert any(twin.hand_mask(s) != game.hand_mask(s) for s in range(4))
    a, b = encode(game.view(seat)), encode(twin.view(seat))
    assert np.array_equal(a.x, b.x) and np.array_equal(a.unseen, b.unseen)
    assert np.array_equal(a.log_counts, b.log_counts)


@pytest.mark.parametrize("moves", [0, 12, 30, 50, 70])
def test_probabilities_respect_what_the_seat_knows(moves: int) -> None:
    """Each unseen card is in exactly one other seat (R1): its chances sum to 1; the seat's own cards
    and every played card have chance 0; a seat with no cards left (R31) holds none."""
    game = _position(f"location-sum/{moves}", moves, moves % 4)
    if game.to_move is None:
        pytest.skip("the game ended before the position")
    seat = game.to_move
    probs = absolute(seat, located_probs(game.view(seat)))
    info = knowledge_of(game.view(seat))
    sums = probs.sum(axis=1)
    for card in range(DECK):
        if info.unknown >> card & 1:
            assert abs(sums[card] - 1.0) < 1e-5
        else:
            assert sums[card] == 0.0
    assert np.all(probs[:, seat] == 0.0)
    for s in range(4):
        if game.count(s) == 0:
            assert np.all(probs[:, s] == 0.0)


def test_the_network_beats_the_uniform_prior_on_fresh_games() -> None:
    """On a few games of a seed used for nothing else, the shipped network's log-loss on the unseen
    cards is below the uniform prior's (a broken or untrained network fails this)."""
    from niugui.learn.location_data import card_scores, positions
    from niugui.learn.location_features import constrain

    batch = positions(["expert", "expert"], seed=777_031, deals=range(6))
    uniform = constrain(np.zeros((len(batch), DECK, 3), np.float32), batch.unseen, batch.log_counts)
    net = cached_location()
    probs = constrain(net.logits(batch.x), batch.unseen, batch.log_counts)
    assert card_scores(probs, batch)[0] < card_scores(uniform, batch)[0] - 0.02


def test_partner_probabilities_follow_the_black_cards() -> None:
    """A seat holding ♠3 alone is partnered with whoever holds ♠2 (R10); a marked card is certain."""
    game = Game.deal(seed="location-partner/0", first_drawer=0)  # ♠3 and ♠2 at two seats
    three = next(s for s in range(4) if game.hand_mask(s) >> BLACK_CARDS[0] & 1)
    assert not game.hand_mask(three) >> BLACK_CARDS[1] & 1
    info = Knowledge(three, 0, game.hand_mask(three), tuple(game.counts()), (0, 0, 0, 0), 0, ())
    holds = np.zeros((DECK, 4))
    two = next(s for s in range(4) if game.hand_mask(s) >> BLACK_CARDS[1] & 1)
    holds[BLACK_CARDS[1], two] = 0.8
    holds[BLACK_CARDS[1], next(s for s in range(4) if s not in (two, three))] = 0.2
    partner = partner_probs(info, holds)
    assert partner[two] == pytest.approx(0.8) and partner[three] == 0.0
    played = tuple((1 << BLACK_CARDS[1]) if s == two else 0 for s in range(4))  # ♠2 shown (R11)
    shown = Knowledge(three, 0, info.hand, info.counts, played, 0, ())
    assert partner_probs(shown, holds)[two] == 1.0


def test_located_sampling_keeps_counts_and_follows_certain_chances() -> None:
    """Worlds drawn from the chances keep every count and replay the history (the engine checks); with
    chances that are certain (the true holders) the world is the true deal."""
    game = _position("location-sample", 25, 1)
    assert game.to_move is not None
    seat = game.to_move
    info = knowledge_of(game.view(seat))
    truth = [game.hand_mask(s) for s in range(4)]
    certain = [[float(truth[s] >> card & 1) if s != seat else 0.0 for s in range(4)] for card in range(DECK)]
    assert sample_located(info, random.Random(1), certain) == truth
    holds = absolute(seat, located_probs(game.view(seat))).tolist()
    for k in range(30):
        hands = sample_located(info, random.Random(k), holds)
        assert [h.bit_count() for h in hands] == list(info.counts)
        assert reconstruct(info, hands).view(seat) == game.view(seat)


def test_the_worlds_option_is_checked() -> None:
    bot = load_bot("search?budget=0.1&worlds=located")
    assert bot.worlds == "located"  # type: ignore[attr-defined]
    assert load_bot("search").worlds == "uniform"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="worlds must be one of uniform, located"):
        load_bot("search?worlds=psychic")


def test_located_search_answers_legally_and_reads_no_hidden_card() -> None:
    """``search?worlds=located`` plays legal moves; with a fixed number of worlds and a seed it answers
    the same in two games that differ only in the other seats' hidden cards — it cannot read them."""
    game = Game.deal(seed="location-search", first_drawer=3)
    rng = random.Random(4)
    for step in range(40):
        seat = game.to_move
        if seat is None:
            break
        view = game.view(seat)
        bot = load_bot("search", seed=step, iterations=3, worlds="located")
        action = bot.choose(view)
        assert is_legal(view, action)
        if step % 8 == 3:
            twin = _twin(game, seat, rng)
            if twin is not None:
                again = load_bot("search", seed=step, iterations=3, worlds="located").choose(twin.view(seat))
                assert again == action
        game.pass_turn(seat) if action is None else game.play(action, seat)


def test_a_tiny_training_run_lowers_its_loss() -> None:
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    from niugui.learn.location_data import positions
    from niugui.learn.location_train import LocationModel, _tensors, loss_of, train

    data = positions(["expert", "expert"], seed=31_099, deals=range(3), all_seats=True)
    torch.manual_seed(0)
    with torch.no_grad():
        before = float(loss_of(LocationModel().eval(), *_tensors(data)))
    model, curve = train(data, data, steps=60, batch_size=64, every=60, log=False)
    with torch.no_grad():
        after = float(loss_of(model, *_tensors(data)))
    assert curve[-1]["step"] == 60 and after < 0.9 * before


def test_relative_seats_follow_play_order() -> None:
    assert relative(2) == [2, 3, 0, 1]
