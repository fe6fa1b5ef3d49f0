"""Game records (RECORD.md, version 1): read, write, round-trip exactly — and their ``meta``.

``record`` sits on top of ``game`` (``game`` never imports it at module level): this module turns a
``Game`` into a record and back, and owns the one schema of a record's ``meta`` that the server,
``niugui play`` and the arena all write (:class:`Meta`, made by :func:`new_meta`).

>>> from niugui.game import Game
>>> game = Game.deal(seed=3, first_drawer=1)
>>> game.play(game.legal_plays()[0])
Combo('single', [D4])
>>> again = game_from_record(record_of_game(game))
>>> record_of_game(again) == record_of_game(game) and again.view(2) == game.view(2)
True
>>> game_from_record({"format": "chess"})
Traceback (most recent call last):
...
niugui.record.RecordError: format: expected "niugui-record", got 'chess'
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Literal, Required, TypedDict

from .cards import CARDS
from .game import Game, IllegalMove
from .series import FirstDrawer, FlipInfo

FORMAT = "niugui-record"
VERSION = 1
META_VERSION = 1
APPS = ("niugui serve", "niugui play", "niugui arena")


class RecordError(ValueError):
    """A record that is malformed (bad structure, types or deal); the message names the field."""


class PlayerRef(TypedDict):
    """Who sat in a seat: an account (``id``; ``None`` for a local player or a bot), the name shown,
    and for a bot its spec (``expert``, ``package.module:Class``), else ``None``."""

    id: str | None
    nickname: str
    bot: str | None


class Meta(TypedDict, total=False):
    """A record's ``meta``, the same for every app (version :data:`META_VERSION`):

    - ``app``: ``niugui serve``, ``niugui play`` or ``niugui arena``; ``game_no``: the game's number in
      its series (a table's, a session's), from 1; ``players``: seats 0..3 as :class:`PlayerRef`;
    - ``first_drawer_by``: ``flip`` (翻牌, and ``flip`` shows the card) or ``previous_first`` (the
      previous game's 上游, ``flip`` is null) — R8, as :meth:`niugui.series.Series.first_drawer` decided;
    - optional: ``started_at`` / ``finished_at`` (ISO 8601, UTC), ``table`` (the server's table id),
      ``seed`` (what makes the deal reproducible: ``niugui play --seed``, the arena's run),
      ``arena`` (the arena's bots, deal and seating), ``fairness`` (the server's proof, see
      :mod:`niugui.fairness`), ``totals_before`` (the running totals before this game, R36, in a game
      ``niugui play`` saved unfinished so that ``--resume`` continues it).
    """

    version: Required[int]
    app: Required[str]
    game_no: Required[int]
    players: Required[list[PlayerRef]]
    first_drawer_by: Required[Literal["flip", "previous_first"]]
    flip: Required[FlipInfo | None]
    started_at: str
    finished_at: str
    table: str
    seed: int | str | None
    totals_before: list[int]
    arena: dict[str, Any]
    fairness: dict[str, Any]



def new_meta(app: str, game_no: int, players: Sequence[PlayerRef], first: FirstDrawer, **extra: Any) -> Meta:
    """The ``meta`` of a game about to be played (``extra``: the optional keys of :class:`Meta`).

    >>> from niugui.series import decide_first_drawer
    >>> from niugui.cards import parse_cards
    >>> bots = [PlayerRef(id=None, nickname="expert", bot="expert")] * 4
    >>> meta = new_meta("niugui arena", 1, bots, decide_first_drawer(None, lambda: parse_cards("D7")[0]))
    >>> meta["first_drawer_by"], meta["flip"]
    ('flip', {'card': 'D7', 'value': 7, 'first_drawer': 2})
    """
    meta: Meta = {
        "version": META_VERSION,
        "app": app,
        "game_no": game_no,
        "players": [dict(p) for p in players],  # type: ignore[misc]
        "first_drawer_by": first.by,
        "flip": first.flip,
    }
    unknown = set(extra) - set(Meta.__annotations__)
    if unknown:
        raise ValueError(f"meta: unknown keys {sorted(unknown)}")
    meta.update(extra)  # type: ignore[typeddict-item]
    return _checked_meta(meta)


def meta_of_record(record: dict[str, Any]) -> Meta | None:
    """The record's ``meta`` if it follows :class:`Meta` (a copy), ``None`` when it has none or an
    older free-form one (no ``version``); :class:`RecordError` when it claims the schema but breaks it."""
    meta = record.get("meta")
    if meta is None or (isinstance(meta, dict) and "version" not in meta):
        return None
    try:
        copied = copy.deepcopy(meta)
    except RecursionError:  # a meta holds a few levels; JSON can nest deeper than a copy can follow
        raise RecordError("meta: nested too deeply to read") from None
    return _checked_meta(copied)


def _checked_meta(meta: Any) -> Meta:
    if not isinstance(meta, dict):
        raise RecordError("meta: expected an object")
    if meta.get("version") != META_VERSION:
        got = meta.get("version")
        raise RecordError(f"meta.version: this engine reads meta version {META_VERSION}, got {got!r}")
    if meta.get("app") not in APPS:
        raise RecordError(f"meta.app: expected one of {', '.join(APPS)}, got {meta.get('app')!r}")
    game_no = meta.get("game_no")
    if not isinstance(game_no, int) or isinstance(game_no, bool) or game_no < 1:
        raise RecordError(f"meta.game_no: expected a game number from 1, got {game_no!r}")
    players = meta.get("players")
    if not isinstance(players, list) or len(players) != 4 or not all(_is_player(p) for p in players):
        raise RecordError('meta.players: expected four {"id", "nickname", "bot"} objects, seats 0..3')
    by, flip = meta.get("first_drawer_by"), meta.get("flip")
    if by == "previous_first":
        if flip is not None:
            raise RecordError("meta.flip: must be null when the previous 上游 draws first (R8)")
    elif by == "flip":
        if not (isinstance(flip, dict) and set(flip) == {"card", "value", "first_drawer"}):
            raise RecordError('meta.flip: expected {"card", "value", "first_drawer"} (R8)')
    else:
        raise RecordError(f'meta.first_drawer_by: expected "flip" or "previous_first", got {by!r}')
    for key in ("started_at", "finished_at", "table"):
        if key in meta and not isinstance(meta[key], str):
            raise RecordError(f"meta.{key}: expected a string")
    for key in ("arena", "fairness"):
        if key in meta and not isinstance(meta[key], dict):
            raise RecordError(f"meta.{key}: expected an object")
    return meta  # type: ignore[return-value]


def _is_player(player: Any) -> bool:
    return (
        isinstance(player, dict)
        and set(player) == {"id", "nickname", "bot"}
        and isinstance(player["nickname"], str)
        and all(player[k] is None or isinstance(player[k], str) for k in ("id", "bot"))
    )


def record_of_game(game: Game, meta: Meta | dict[str, Any] | None = None) -> dict[str, Any]:
    """The record of ``game`` as it stands (RECORD.md), with ``meta`` (copied) when given."""
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
    if meta:
        record["meta"] = copy.deepcopy(meta)  # the record must not share the caller's data
    return record


def game_from_record(record: Any) -> Game:
    """Replay a record; raise :class:`RecordError` (malformed) or :class:`IllegalMove` (with ``.index``).

    The game knows nothing of ``meta``: read it with :func:`meta_of_record`."""
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
    if meta is not None and not isinstance(meta, dict):
        raise RecordError("meta: expected an object")
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
