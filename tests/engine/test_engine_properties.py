"""Property-based tests (hypothesis) over random seeded games with random legal actions, escapes
included: every game ends; the 54 cards are conserved; turns, tricks and the result follow a reference
written from the rules (R26–R35); records round-trip to the identical state; no view leaks a hidden
card; illegal actions raise IllegalMove naming a rule and change nothing."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

from engine_helpers import codes, random_game
from engine_oracle import DECK, RefGame, classify, expected_result, may_play
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from niugui import Game, IllegalMove


def examples(n: int) -> settings:
    """Hypothesis settings: ``n`` games, no per-example deadline (a game takes milliseconds to tens)."""
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


games = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "first_drawer": st.integers(0, 3),
        "pass_rate": st.sampled_from([0.0, 0.2, 0.5, 0.8]),
        "escape_rate": st.sampled_from([0.0, 0.0, 0.01, 0.05]),
    }
)


def snapshot(game: Game) -> str:
    return json.dumps([game.view(s) for s in (None, 0, 1, 2, 3)] + [game.to_record()], sort_keys=True)


def strings(data: Any) -> Iterator[str]:
    """Every string in a JSON value, dict keys included."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from strings(value)
    elif isinstance(data, list):
        for item in data:
            yield from strings(item)


@examples(400)
@given(games)
def test_R26_R35_random_games_end_conserve_cards_and_score_by_the_rules(g: dict[str, Any]) -> None:
    """Every game ends (each trick uses a card: at most 54 leads); hands + plays are the 54 cards, each
    once, after every action; turns, passes, finish and result equal the reference (R26–R35); scores
    sum to zero except on escape (one seat −9)."""

    def conserved(game: Game, *_: object) -> None:
        played = [c for _, kind, cards in game.actions() if kind == "play" for c in codes(cards)]
        held = [c for s in range(4) for c in codes(game.hand(s))]
        assert sorted(played + held) == sorted(DECK)
        assert len(game.actions()) <= 54 * 4

    game, ref = random_game(g["seed"], g["first_drawer"], g["pass_rate"], g["escape_rate"], on_step=conserved)
    result = game.result
    assert result is not None and game.over and game.to_move is None
    got = result.to_dict()
    assert got == ref.result()
    if got["outcome"] == "escape":
        assert sorted(got["scores"]) == [-9, 0, 0, 0] and got["scores"][ref.escaped] == -9  # type: ignore[index]
    else:
        assert sum(got["scores"]) == 0
        assert got == expected_result(ref.black, got["finish"])


@examples(60)
@given(games)
def test_R11_R12_no_view_ever_shows_a_hidden_card(g: dict[str, Any]) -> None:
    """After every action: view(seat) holds no card of another seat's unplayed hand (anywhere in its
    JSON), view(None) no unplayed card at all; once over, everything is revealed."""

    def no_leak(game: Game, *_: object) -> None:
        hands = [set(codes(game.hand(s))) for s in range(4)]
        if game.over:
            view = game.view(None)
            assert view["hands"] == [codes(game.hand(s)) for s in range(4)]
            assert view["dealt"] == [codes(game.dealt(s)) for s in range(4)]
            return
        spectator = set(strings(game.view(None)))
        assert not spectator & set().union(*hands), "the spectator sees an unplayed card"
        for seat in range(4):
            view = game.view(seat)
            hidden = set().union(*(hands[o] for o in range(4) if o != seat))
            assert not set(strings(view)) & hidden, f"seat {seat} sees another seat's card"
            assert json.loads(json.dumps(view)) == view  # plain JSON data

    random_game(g["seed"], g["first_drawer"], g["pass_rate"], g["escape_rate"], on_step=no_leak)


@examples(100)
@given(games, st.integers(0, 2**32 - 1))
def test_record_round_trip_replays_to_the_identical_state(g: dict[str, Any], pick: int) -> None:
    """RECORD.md: to_record → json.dumps → json.loads → from_record gives equal records and equal views
    for every seat, at the end and at a few positions along the game."""
    rng = random.Random(pick)
    kept: list[tuple[str, dict[str, Any]]] = []

    def keep(game: Game, *_: object) -> None:
        if rng.random() < 0.05 or game.over:
            kept.append((snapshot(game), game.to_record()))

    game, _ = random_game(g["seed"], g["first_drawer"], g["pass_rate"], g["escape_rate"], on_step=keep)
    for seen, record in kept:
        again = Game.from_record(json.loads(json.dumps(record)))
        assert snapshot(again) == seen
        assert again.to_record() == record
    final = Game.from_record(json.loads(json.dumps(game.to_record())))
    assert final.result == game.result and final.to_record() == game.to_record()


def illegal_attempts(
    game: Game, ref: RefGame, rng: random.Random
) -> list[tuple[Callable[[], None], set[str]]]:
    """Some illegal actions for this position, each with the rules it may be refused under."""
    out: list[tuple[Callable[[], None], set[str]]] = []
    if game.over:
        out.append((lambda: game.pass_turn(), {"R31"}))
        out.append((lambda: game.play(["D4"]), {"R31"}))
        out.append((lambda: game.escape(rng.randrange(4)), {"R31", "R35"}))
        return out
    seat = game.to_move
    assert seat is not None
    hand = codes(game.hand(seat))
    other = (seat + rng.randrange(1, 4)) % 4
    foreign = [c for c in DECK if c not in hand]
    out.append((lambda: game.play([rng.choice(foreign)]), {"R27"}))  # a card it does not hold
    out.append((lambda: game.play([hand[0]], seat=other), {"R27"}))  # out of turn
    out.append((lambda: game.pass_turn(seat=other), {"R27"}))
    if not game.can_pass():
        out.append((lambda: game.pass_turn(), {"R27"}))  # no pass on a free lead
    for _ in range(3):  # random subsets of the hand that the oracle says may not be played now
        cards = rng.sample(hand, rng.randint(1, min(6, len(hand))))
        if not may_play(cards, ref.current, ref.opening):
            rules = {"R25"} if classify(cards) is None else {"R17", "R24", "R26"}
            out.append((lambda c=cards: game.play(c), rules))  # type: ignore[misc]
    for gone in game.finish:
        out.append((lambda s=gone: game.escape(s), {"R35"}))  # type: ignore[misc]
    return out


@examples(50)
@given(games, st.integers(0, 2**32 - 1))
def test_R17_R24_R25_R27_R31_R35_illegal_actions_raise_and_change_nothing(
    g: dict[str, Any], pick: int
) -> None:
    """Before every action (and after the end): wrong cards, out-of-turn seats, passes on a lead,
    escapes of seats that went out raise IllegalMove naming a rule; the views and record are unchanged."""
    rng = random.Random(pick)
    tried: set[str] = set()

    def attempt(game: Game, ref: RefGame, *_: object) -> None:
        before = snapshot(game)
        for action, rules in illegal_attempts(game, ref, rng):
            try:
                action()
            except IllegalMove as error:
                assert error.rule in rules, (str(error), rules)
                assert error.rule in str(error)
                tried.add(error.rule)
            else:
                raise AssertionError(f"an illegal action was accepted (expected {rules})")
        assert snapshot(game) == before  # no attempt changed anything (a change would persist)

    game, _ = random_game(g["seed"], g["first_drawer"], g["pass_rate"], g["escape_rate"], on_step=attempt)
    assert game.over and "R31" in tried
    assert "R27" in tried or len(game.actions()) == 1  # (an escape as the first action leaves no turn)
