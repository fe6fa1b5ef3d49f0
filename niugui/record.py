"""Game records (RECORD.md, version 1): read, write, round-trip exactly.

>>> from niugui.game import Game
>>> game = Game.deal(seed=3, first_drawer=1)
>>> game.play(game.legal_plays()[0])
Combo('single', [D4])
>>> again = Game.from_record(game.to_record())
>>> again.to_record() == game.to_record() and again.view(2) == game.view(2)
True
>>> Game.from_record({"format": "chess"})
Traceback (most recent call last):
...
niugui.record.RecordError: format: expected "niugui-record", got 'chess'
"""

from __future__ import annotations

import copy
from typing import Any

from .cards import CARDS
from .game import Game, IllegalMove

FORMAT = "niugui-record"
VERSION = 1


class RecordError(ValueError):
    """A record that is malformed (bad structure, types or deal); the message names the field."""


def record_of_game(game: Game) -> dict[str, Any]:
    """The record of ``game`` as it stands (RECORD.md)."""
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "variant": {},
        "first_drawer": game.first_drawer,
    }
    if game.deck is not None:
        record["deck"] = [str(CARDS[c]) for c in game.deck]
    else:
        record["hands"] = [[str(c) for c in game.dealt(seat)] for seat in range(4)]
    actions: list[dict[str, Any]] = []
    for seat, action, cards in game.actions():
        actions.append(
            {"seat": seat, "play": [str(c) for c in cards]}
            if action == "play"
            else {"seat": seat, action: True}
        )
    record["actions"] = actions
    if game.result is not None:
        record["result"] = game.result.to_dict()
    if game.meta:
        record["meta"] = copy.deepcopy(game.meta)  # the record must not share the game's data
    return record


def game_from_record(record: Any) -> Game:
    """Replay a record; raise :class:`RecordError` (malformed) or :class:`IllegalMove` (with ``.index``)."""
    if not isinstance(record, dict):
        raise RecordError(f"record: expected a JSON object, got {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise RecordError(f'format: expected "{FORMAT}", got {record.get("format")!r}')
    version = record.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= VERSION:
        raise RecordError(f"version: this engine reads version {VERSION}, got {version!r}")
    variant = record.get("variant", {})
    if variant not in ({}, None):
        raise RecordError(f"variant: no rule variants are implemented, got {variant!r} (RULES.md section 6)")
    first_drawer = record.get("first_drawer")
    if not isinstance(first_drawer, int) or isinstance(first_drawer, bool) or not 0 <= first_drawer < 4:
        raise RecordError(f"first_drawer: must be a seat 0..3, got {first_drawer!r}")
    game = _deal(record, first_drawer)
    meta = record.get("meta")
    if meta is not None:
        if not isinstance(meta, dict):
            raise RecordError("meta: expected an object")
        game.meta = copy.deepcopy(meta)
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError("actions: expected a list")
    for index, action in enumerate(actions):
        _apply(game, index, action)
    if "result" in record and record["result"] is not None:
        expected = game.result.to_dict() if game.result is not None else None
        if record["result"] != expected:
            raise RecordError(
                f"result: the record says {record['result']!r} but replaying its actions gives {expected!r}"
            )
    return game


def _deal(record: dict[str, Any], first_drawer: int) -> Game:
    has_deck, has_hands = "deck" in record, "hands" in record
    if has_deck == has_hands:
        raise RecordError("deck/hands: a record gives the deal as exactly one of 'deck' or 'hands'")
    try:
        if has_deck:
            deck = record["deck"]
            if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
                raise RecordError("deck: expected a list of 54 card codes")
            return Game.from_deck(deck, first_drawer)
        hands = record["hands"]
        if (
            not isinstance(hands, list)
            or len(hands) != 4
            or not all(isinstance(h, list) and all(isinstance(c, str) for c in h) for h in hands)
        ):
            raise RecordError("hands: expected four lists of card codes, seats 0..3")
        return Game.from_hands(hands, first_drawer)
    except RecordError:
        raise
    except ValueError as error:
        field = "deck" if has_deck else "hands"
        message = str(error)
        raise RecordError(message if message.startswith(field) else f"{field}: {message}") from None


def _apply(game: Game, index: int, action: Any) -> None:
    where = f"actions[{index}]"
    if not isinstance(action, dict):
        raise RecordError(f'{where}: expected an object like {{"seat": 1, "play": ["D4"]}}')
    seat = action.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
        raise RecordError(f"{where}.seat: must be a seat 0..3, got {seat!r}")
    kinds = [k for k in ("play", "pass", "escape") if k in action]
    if len(kinds) != 1:
        raise RecordError(f"{where}: needs exactly one of 'play', 'pass' or 'escape'")
    kind = kinds[0]
    try:
        if kind == "play":
            cards = action["play"]
            if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
                raise RecordError(f"{where}.play: expected a list of card codes")
            try:
                game.play(cards, seat=seat)
            except IllegalMove:
                raise
            except ValueError as error:  # a bad card code
                raise IllegalMove(f"{error}", "R6") from None
        elif action[kind] is not True:
            raise RecordError(f"{where}.{kind}: expected true")
        elif kind == "pass":
            game.pass_turn(seat=seat)
        else:
            game.escape(seat)
    except IllegalMove as error:
        raise IllegalMove(f"{where}: {error}", error.rule, index) from None
