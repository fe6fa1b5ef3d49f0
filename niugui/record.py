"""Game records' ``meta`` (RECORD.md, version 1), and records with it.

A record without ``meta`` is the game's own: :meth:`niugui.game.Game.to_record` writes it and
:meth:`~niugui.game.Game.from_record` replays it (raising :class:`RecordError`). This module sits on
top of ``game`` and ``series`` and owns the one schema of a record's ``meta`` that the server,
``niugui play`` and the arena all write (:class:`Meta`, made by :func:`new_meta`).

>>> from niugui.game import Game
>>> game = Game.deal(seed=3, first_drawer=1)
>>> record = record_of_game(game, {"table": "t1"})
>>> record["meta"], Game.from_record(record).view(2) == game.view(2)
({'table': 't1'}, True)
>>> meta_of_record(record) is None  # a free-form meta (no version) is not a Meta
True
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Literal, Required, TypedDict

from .game import Game
from .game import RecordError as RecordError  # the record API's error; the parser in game raises it
from .series import FirstDrawer, FlipRecord

META_VERSION = 1
APPS = ("niugui serve", "niugui play", "niugui arena")


class RecordPlayer(TypedDict):
    """A player as a record's ``meta`` names it (the wire's is :class:`niugui.server.protocol.PlayerRef`).
    Who sat in a seat: an account (``id``; ``None`` for a local player or a bot), the name shown,
    and for a bot its spec (``expert``, ``package.module:Class``), else ``None``."""

    id: str | None
    nickname: str
    bot: str | None


class Meta(TypedDict, total=False):
    """A record's ``meta``, the same for every app (version :data:`META_VERSION`):

    - ``app``: ``niugui serve``, ``niugui play`` or ``niugui arena``; ``game_no``: the game's number in
      its series (a table's, a session's), from 1; ``players``: seats 0..3 as :class:`RecordPlayer`;
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
    players: Required[list[RecordPlayer]]
    first_drawer_by: Required[Literal["flip", "previous_first"]]
    flip: Required[FlipRecord | None]
    started_at: str
    finished_at: str
    table: str
    seed: int | str | None
    totals_before: list[int]
    arena: dict[str, Any]
    fairness: dict[str, Any]



def new_meta(
    app: str, game_no: int, players: Sequence[RecordPlayer], first: FirstDrawer, **extra: Any
) -> Meta:
    """The ``meta`` of a game about to be played (``extra``: the optional keys of :class:`Meta`).

    >>> from niugui.series import decide_first_drawer
    >>> from niugui.cards import parse_cards
    >>> bots = [RecordPlayer(id=None, nickname="expert", bot="expert")] * 4
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
    """The record of ``game`` as it stands (RECORD.md, :meth:`Game.to_record`), with ``meta`` (copied)
    when given."""
    record = game.to_record()
    if meta:
        record["meta"] = copy.deepcopy(meta)  # the record must not share the caller's data
    return record
