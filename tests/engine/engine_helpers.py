"""Helpers for the engine tests: crafted deals and seeded random games, mirrored by the oracle's RefGame."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from engine_oracle import DECK, RefGame, hand_sizes

from niugui import Game


def codes(cards: Any) -> list[str]:
    return [str(c) for c in cards]


def crafted(fixed: Mapping[int, Sequence[str]], first_drawer: int = 0) -> Game:
    """A game whose seats hold at least the ``fixed`` cards; the rest of the deck fills the hands to
    their R9 sizes, in deck order."""
    hands = [list(fixed.get(seat, [])) for seat in range(4)]
    used = {c for h in hands for c in h}
    assert len(used) == sum(len(h) for h in hands), "a card is fixed twice"
    rest = [c for c in DECK if c not in used]
    for seat, size in enumerate(hand_sizes(first_drawer)):
        while len(hands[seat]) < size:
            hands[seat].append(rest.pop())
    assert not rest
    return Game.from_hands(hands, first_drawer)


Event = tuple[str, int, list[str]]
"""("play", seat, cards) | ("pass", seat, []) | ("escape", seat, [])."""


def random_game(
    seed: int,
    first_drawer: int | None = None,
    pass_rate: float = 0.35,
    escape_rate: float = 0.0,
    on_step: Callable[[Game, RefGame, Event], None] | None = None,
) -> tuple[Game, RefGame]:
    """Play a seeded random game to its end, mirroring every action on a RefGame and checking that the
    engine and the reference agree on turn, lead, finish and result after each one."""
    rng = random.Random(seed)
    game = Game.deal(seed=seed, first_drawer=rng.randrange(4) if first_drawer is None else first_drawer)
    ref = RefGame([codes(game.hand(s)) for s in range(4)])
    for event in random_actions(game, rng, pass_rate, escape_rate):
        kind, seat, cards = event
        if kind == "play":
            ref.play(seat, cards)
        elif kind == "pass":
            ref.pass_turn(seat)
        else:
            ref.escape(seat)
        assert game.to_move == ref.to_move, (seed, len(game.actions()))
        assert game.can_pass() == ref.can_pass()
        assert game.finish == ref.finish
        assert [game.count(s) for s in range(4)] == [len(h) for h in ref.hands]
        current = game.current
        assert (sorted(codes(current.cards)) if current else None) == (
            sorted(ref.current) if ref.current else None
        )
        assert [codes(game.marks(s)) for s in range(4)] == [ref.marks(s) for s in range(4)]
        assert (game.result.to_dict() if game.result else None) == ref.result(), seed
        if on_step is not None:
            on_step(game, ref, event)
    return game, ref


def random_actions(game: Game, rng: random.Random, pass_rate: float, escape_rate: float) -> Iterator[Event]:
    """Apply random legal actions to ``game`` until it is over, yielding each after it is applied."""
    while not game.over:
        # every game ends: each play uses a card and at most 3 passes follow a play (R29)
        assert len(game.actions()) < 54 * 4, "the game does not end"
        seat = game.to_move
        assert seat is not None
        if escape_rate and rng.random() < escape_rate:
            holding = [s for s in range(4) if game.count(s)]
            who = rng.choice(holding)
            game.escape(who)
            yield ("escape", who, [])
            return
        options = game.legal_plays()
        if game.can_pass() and (not options or rng.random() < pass_rate):
            game.pass_turn()
            yield ("pass", seat, [])
        else:
            cards = codes(rng.choice(options))
            game.play(cards)
            yield ("play", seat, cards)
