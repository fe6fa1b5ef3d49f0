"""Determinization: sample the hidden hands a seat cannot see, consistent with its view.

Everything public to a seat (R11, R12) is in its view: its own hand, every seat's card count, every
play and pass (so every card played, and the ♠3/♠2 marks, which are exactly the plays of those two
cards). The cards no one has played and the seat does not hold are the *unknown* cards; a sample
deals them to the other seats so each gets exactly its public count. These are all the hard
constraints a view carries:

- a card played (by anyone) or held by the seat is in no other hand;
- ♠3/♠2 not yet marked and not in the seat's hand are among the unknown cards, so they go to some
  seat still holding cards — which decides, in that sample, who the seat's partner is (R10), e.g. a
  seat holding ♠3 but not ♠2 is partnered with whoever the sample gives ♠2;
- the game is not over (R31): with two seats out the last unknown hand is forced, and a seat out
  has shown its ♠3/♠2 by playing them, so no count-respecting sample can end the game early;
- the deal sizes (R9) come out right by themselves: dealt hand = hand now + cards played.

A sample is rebuilt as a real :class:`~niugui.game.Game` (:func:`reconstruct`) by dealing
``hand + played`` to each seat and replaying the history, so the engine checks every step.

>>> from niugui import Game
>>> game = Game.deal(seed=5, first_drawer=1)
>>> _ = game.play(game.legal_plays()[0]); game.pass_turn()
>>> import random
>>> info = knowledge_of(game.view(0))
>>> world = reconstruct(info, sample_hands(info, random.Random(1)))
>>> world.view(0) == game.view(0)
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..cards import BLACK_MASK, FULL_MASK, cards_of, mask_of, parse_cards
from ..combos import Combo, classify_mask
from ..game import SEATS, Game, SeatView, shuffle

PASS = -1
"""The history entry of a pass (a play is its card mask)."""


@dataclass(frozen=True)
class Knowledge:
    """What a seat knows, from its view, in masks: the input of sampling and reconstruction."""

    seat: int
    first_drawer: int
    hand: int
    """The seat's own hand now."""
    counts: tuple[int, ...]
    """Every seat's number of cards now."""
    played: tuple[int, ...]
    """The cards each seat has played (marks included: a mark is a played ♠3/♠2)."""
    unknown: int
    """Cards held by the other seats: neither played nor in the seat's hand."""
    history: tuple[tuple[int, int], ...]
    """Every action as (seat, card mask) or (seat, ``PASS``)."""


def knowledge_of(view: SeatView) -> Knowledge:
    """Read a seat's view of a game in progress; ``ValueError`` if it is not one, or is inconsistent."""
    seat = view.get("seat")
    if not isinstance(seat, int) or "hand" not in view:
        raise ValueError("view: a seat's view is needed (with its hand), not a spectator's")
    if view.get("over"):
        raise ValueError("view: the game is over (R31); there is nothing hidden to sample")
    hand = mask_of(parse_cards(view["hand"]))
    played = [0] * SEATS
    history: list[tuple[int, int]] = []
    for index, action in enumerate(view["history"]):
        who = action["seat"]
        if "play" in action:
            mask = mask_of(parse_cards(action["play"]))
            if mask & (hand | played[0] | played[1] | played[2] | played[3]):
                raise ValueError(f"view: history[{index}] plays a card already seen (R1)")
            played[who] |= mask
            history.append((who, mask))
        elif action.get("pass"):
            history.append((who, PASS))
        else:
            raise ValueError(f"view: history[{index}] is neither a play nor a pass (an escape ends the game)")
    counts = tuple(int(n) for n in view["counts"])
    seen = hand | played[0] | played[1] | played[2] | played[3]
    unknown = FULL_MASK & ~seen
    if counts[seat] != hand.bit_count():
        raise ValueError("view: the seat's count differs from its hand")
    if unknown.bit_count() != sum(counts) - counts[seat]:
        raise ValueError("view: card counts do not add up to the 54 cards (R1)")
    for other in range(SEATS):
        marks = mask_of(parse_cards(view["marks"][other]))
        if marks != played[other] & BLACK_MASK:
            raise ValueError(f"view: seat {other}'s marks differ from the ♠3/♠2 it played (R11)")
    return Knowledge(seat, int(view["first_drawer"]), hand, counts, tuple(played), unknown, tuple(history))


def sample_hands(info: Knowledge, rng: random.Random) -> list[int]:
    """One uniformly random assignment of the unknown cards to the other seats, by their counts."""
    pool = cards_of(info.unknown)
    shuffle(pool, rng)  # exactly rng.shuffle(pool), faster
    hands = [0] * SEATS
    start = 0
    for seat in range(SEATS):
        if seat == info.seat:
            hands[seat] = info.hand
            continue
        end = start + info.counts[seat]
        hands[seat] = mask_of(pool[start:end])
        start = end
    return hands


def sample_located(info: Knowledge, rng: random.Random, holds: list[list[float]]) -> list[int]:
    """One assignment of the unknown cards to the other seats, by their counts, each card drawn in a
    random order with the chances ``holds[card][seat]`` (54 × 4, e.g. the card-location network's,
    :func:`niugui.learn.location_features.absolute`) among the seats it still fits in. The counts are
    hard constraints, the chances soft: a seat that is full takes no more, and a card whose every
    seat with room has chance 0 goes to one of them uniformly."""
    pool = cards_of(info.unknown)
    shuffle(pool, rng)
    room = [0 if seat == info.seat else info.counts[seat] for seat in range(SEATS)]
    hands = [0] * SEATS
    hands[info.seat] = info.hand
    for card in pool:
        chances = holds[card]
        weights = [chances[s] if room[s] else 0.0 for s in range(SEATS)]
        total = sum(weights)
        if total <= 0.0:
            weights = [1.0 if room[s] else 0.0 for s in range(SEATS)]
            total = sum(weights)
        pick = rng.random() * total
        seat = 0
        while seat < SEATS - 1 and (pick >= weights[seat] or not weights[seat]):
            pick -= weights[seat]
            seat += 1
        if not room[seat]:  # rounding at the end of the line: the last seat with room
            seat = max(s for s in range(SEATS) if room[s])
        room[seat] -= 1
        hands[seat] |= 1 << int(card)
    return hands


def dealt_hands(info: Knowledge, hands: list[int]) -> list[int]:
    """The deal a sample implies: each seat's hand now plus what it has played (R9 sizes follow)."""
    return [hands[seat] | info.played[seat] for seat in range(SEATS)]


def history_plays(info: Knowledge) -> list[Combo | None]:
    """The combination of each play of the history (``None`` for a pass, or for cards that form none,
    which the engine then refuses): what :func:`reconstruct` replays, to be made once for many worlds."""
    return [None if mask == PASS else classify_mask(mask) for _, mask in info.history]


def reconstruct(info: Knowledge, hands: list[int], plays: list[Combo | None] | None = None) -> Game:
    """A real game dealt from a sample and replayed through the history (the engine checks each step);
    ``plays`` is :func:`history_plays` of ``info``, when the caller made it already."""
    game = Game.from_hands(dealt_hands(info, hands), info.first_drawer)
    if plays is None:
        plays = history_plays(info)
    for (seat, mask), combo in zip(info.history, plays, strict=True):
        if mask == PASS:
            game.pass_turn(seat)
        else:
            game.play(combo if combo is not None else cards_of(mask), seat)
    return game
