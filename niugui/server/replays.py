"""Replays computed by the engine: a record in, the game after each of its actions out.

The web page's replay viewer only shows these steps; it has no copy of the game rules (the page
judges a selection, nothing more). Its routes are in :mod:`niugui.server.routes.replays`.

What a step shows (R11, R12): the engine's spectator view ``game.view(None)``, so no hand is shown
before the game ends. Only when the record's actions *finish* the game does each step also carry
``hands`` (what every seat holds at that step): its end reveals every hand (R11), and the record
holds the deal anyway. A record of a game in progress gives no hand and no deck at any step.

>>> from niugui.game import Game
>>> game = Game.deal(seed=3, first_drawer=1)
>>> _ = game.play(game.legal_plays()[0])
>>> answer = replay_of_record(game.to_record())
>>> answer["finished"], len(answer["steps"]), answer["steps"][1]["action"], answer["steps"][1]["hands"]
(False, 2, {'seat': 3, 'play': ['D4'], 'kind': 'single'}, None)
>>> replay_of_record({"format": "niugui-record", "version": 1, "first_drawer": 5})
Traceback (most recent call last):
...
niugui.server.replays.ReplayProblem: first_drawer: must be a seat 0..3, got 5
"""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi.responses import JSONResponse
from pydantic import ValidationError

from ..game import ActionEntry, Game, IllegalMove, RecordError
from .protocol import FlipInfo, Replay, ReplayError, Reveal

MAX_RECORD_BYTES = 64 * 1024
"""The largest record ``POST /api/replay`` reads; a whole game with its meta is a few KiB."""

STATUS = {
    "bad_json": 400,
    "bad_record": 422,
    "illegal_action": 422,
    "too_large": 413,
    "not_found": 404,
    "in_progress": 404,
}
GAME_IDS = range(1, 2**63)
"""Ids a store can hold (a database integer); any other id is no game, without asking the database."""
_FIELD = re.compile(r"[A-Za-z_][\w\[\]./]*")


class ReplayProblem(Exception):
    """A replay refused: ``code`` (a :class:`ReplayError` code) and the fields the page needs."""

    def __init__(self, code: str, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.code = code
        self.fields = {k: v for k, v in fields.items() if v is not None}

    def response(self) -> JSONResponse:
        detail = ReplayError.model_validate({"code": self.code, "message": str(self), **self.fields})
        return JSONResponse({"detail": detail.model_dump(exclude_none=True)}, status_code=STATUS[self.code])


def parse_record(body: bytes) -> Any:
    """The JSON value of a request body (any JSON; the record checks come after).

    Its strings must be Unicode text: JSON's escapes can spell a lone UTF-16 surrogate (``"\\ud800"``),
    which no answer can carry back (UTF-8), so it is refused here.
    """
    try:
        value = json.loads(body)
        json.dumps(value, ensure_ascii=False).encode()
    except RecursionError:
        raise ReplayProblem("bad_json", "the JSON is nested too deeply") from None
    except UnicodeEncodeError:
        raise ReplayProblem("bad_json", "not Unicode text: a string holds a lone surrogate") from None
    except ValueError as error:  # JSONDecodeError, bad UTF-8, an integer too long to read
        raise ReplayProblem("bad_json", f"not valid JSON: {error}") from None
    return value


def replay_of_record(record: Any) -> dict[str, Any]:
    """Every step of ``record`` as a :class:`Replay` (JSON data); raise :class:`ReplayProblem`."""
    try:
        final = Game.from_record(record)
    except IllegalMove as error:
        raise ReplayProblem("illegal_action", str(error), index=error.index, rule=error.rule) from None
    except RecordError as error:
        raise ReplayProblem("bad_record", str(error), field=_field_of(str(error))) from None
    finished = final.over
    history = final.view(None)["history"]
    game = Game.from_record({**record, "actions": [], "result": None})
    steps = [_step(game, None, finished)]
    for action, public in zip(record.get("actions", []), history, strict=True):
        _apply(game, action)  # checked by Game.from_record above: legal
        steps.append(_step(game, public, finished))
    meta = record.get("meta") if isinstance(record.get("meta"), dict) else {}
    answer = {
        "finished": finished,
        "first_drawer": final.first_drawer,
        "seats": _seats(meta),
        "flip": _valid(FlipInfo, meta.get("flip")),
        "reveal": _reveal(record, meta) if finished else None,
        "steps": steps,
    }
    # Built through the model, so the answer is exactly what docs/protocol.md documents.
    built: dict[str, Any] = Replay.model_validate(answer).model_dump(by_alias=True, exclude_unset=True)
    return built


def _apply(game: Game, action: dict[str, Any]) -> None:
    if "play" in action:
        game.play(action["play"], seat=action["seat"])
    elif "pass" in action:
        game.pass_turn(seat=action["seat"])
    else:
        game.escape(action["seat"])


def _step(game: Game, action: ActionEntry | None, finished: bool) -> dict[str, Any]:
    hands = [[str(c) for c in game.hand(s)] for s in range(4)] if finished else None
    return {"action": action, "view": game.view(None, history=False), "hands": hands}


def _field_of(message: str) -> str | None:
    head = message.split(":", 1)[0]
    return head if ":" in message and _FIELD.fullmatch(head) else None


def _seats(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """Seat names from the record's meta: ``players`` (the server's, objects), ``names`` or ``seats``."""
    listed = meta.get("players") or meta.get("names") or meta.get("seats")
    seats = []
    for s in range(4):
        entry = listed[s] if isinstance(listed, list) and s < len(listed) else None
        if isinstance(entry, dict):
            nickname, bot = entry.get("nickname") or entry.get("name"), entry.get("bot")
        else:
            nickname, bot = entry, None
        seats.append({
            "nickname": nickname[:40] if isinstance(nickname, str) else None,
            "bot": bot[:16] if isinstance(bot, str) else None,
        })
    return seats


def _reveal(record: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any] | None:
    """The fairness proof of a finished record, when its meta holds one (docs/protocol.md "Fair deal")."""
    fairness = meta.get("fairness")
    if isinstance(fairness, dict):  # scheme 2 (and meta version 1): the proof is meta.fairness
        return _valid(Reveal, {**fairness, "deck": record.get("deck")})
    proof = {  # scheme 1: the proof sat in meta itself
        "scheme": meta.get("commitment_scheme", "sha256(salt:deck)"),
        "commitment": meta.get("commitment"),
        "salt": meta.get("salt"),
        "deck": record.get("deck"),
    }
    return _valid(Reveal, proof)


def _valid(model: type[FlipInfo] | type[Reveal], data: Any) -> dict[str, Any] | None:
    try:
        return model.model_validate(data).model_dump(exclude_none=True) if isinstance(data, dict) else None
    except ValidationError:
        return None
