"""``niugui replay [--json] [--actions] FILE``: replay a game record and say how it stands or ended.

FILE is a record (RECORD.md) or ``-`` for standard input. The human report names the mode, the
black side, the finish places, the outcome and each seat's score change, Chinese beside English; for
a game in progress it shows only what is public (R11, R12): whose turn, card counts, marks, the
current trick and the finish so far. ``--json`` prints exactly ``result.to_dict()`` — or ``null``
for a game in progress. A bad record exits with status 1 and one line on standard error naming
the field or action index and the rule.

>>> from niugui import Game
>>> game = Game.deal(seed=7, first_drawer=0)
>>> game.play("D4")
Combo('single', [D4])
>>> print("\\n".join(describe(game.view(None))))  # doctest: +NORMALIZE_WHITESPACE
对局进行中 game in progress — 1 action: 1 play, 0 passes
模式 mode           hidden until both 牛鬼 cards are played or the game ends (R11)
先抓牌者 first drawer  seat 0
轮到 to move         seat 3
<BLANKLINE>
座位 seat  张数 cards  标记 marks  名次 place
0          14
1          13
2          12
3          14
<BLANKLINE>
本轮 this trick (to beat: 单牌 single ♦4, seat 2)
  seat 2  单牌 single ♦4
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len

from ..game import ActionEntry, Game, IllegalMove, ResultDict, SeatView
from ..record import RecordError
from .text import (
    ESCAPE_EN,
    ESCAPE_ZH,
    OUTCOME_RULE,
    PASS_EN,
    PASS_ZH,
    both,
    cards_text,
    mode_name,
    one_line,
    outcome_name,
    place_name,
    play_text,
    side_name,
)

PROG = "niugui replay"


class ReplayError(Exception):
    """A record that cannot be replayed; the message is the one line shown to the user."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="replay a game record and print its result",
        description=(
            "Replay a game record (RECORD.md) and print its result — or, for a game in progress, "
            "its public state — with Chinese names beside English ones. A record that is malformed "
            "or breaks a rule is reported on one line naming the field or action and the rule "
            "(exit status 1)."
        ),
    )
    parser.add_argument("file", metavar="FILE", help="the record (JSON); '-' reads standard input")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print only the result as JSON, exactly result.to_dict(); null for a game in progress",
    )
    parser.add_argument("--actions", action="store_true", help="also list every action in order")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Replay ``args.file``; 0 on success, 1 (one line on stderr) for a bad record."""
    name = "<stdin>" if args.file == "-" else args.file
    try:
        game = replay(load(args.file), name)
    except ReplayError as error:
        print(f"{PROG}: {one_line(str(error))}", file=sys.stderr)
        return 1
    if args.json:
        result = game.result
        return emit(json.dumps(None if result is None else result.to_dict(), ensure_ascii=False))
    view = game.view(None)  # only what is public; a finished game's view reveals everything
    lines = describe(view, source=name)
    if args.actions:
        lines += ["", both("出牌记录", "actions"), *action_lines(view["history"])]
    return emit("\n".join(lines))


def emit(text: str) -> int:
    """Print ``text``; a reader that went away (``| head``) is no error."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no complaint at exit either
    return 0


def load(path: str) -> Any:
    """The JSON value in ``path`` (``-``: standard input), or :class:`ReplayError`."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            text = sys.stdin.buffer.read().decode("utf-8")
        else:
            with open(path, encoding="utf-8") as file:
                text = file.read()
    except OSError as error:
        raise ReplayError(f"{name}: cannot read the file: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ReplayError(f"{name}: not UTF-8 text (byte {error.start}): a record is JSON") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ReplayError(f"{name}: not valid JSON: {error}") from None
    except RecursionError:
        raise ReplayError(f"{name}: not a record: JSON nested too deeply") from None


def replay(record: Any, name: str = "record") -> Game:
    """Replay a parsed record, turning the engine's errors into one :class:`ReplayError` line."""
    try:
        return Game.from_record(record)
    except IllegalMove as error:
        raise ReplayError(f"{name}: illegal action: {error}") from None
    except RecordError as error:
        if str(error).startswith("result:") and isinstance(record, dict):
            raise ReplayError(f"{name}: wrong result: {_result_mismatch(record, str(error))}") from None
        raise ReplayError(f"{name}: malformed record: {error}") from None
    except ValueError as error:  # the engine's checks of a deal or a seat
        raise ReplayError(f"{name}: malformed record: {error}") from None


RESULT_RULE = {"mode": "R10", "black": "R10", "finish": "R30"}
"""The rule behind each field of a result; ``outcome`` and ``scores`` follow the outcome's rule."""


def _result_mismatch(record: dict[str, Any], message: str) -> str:
    """Which field of the record's ``result`` disagrees with its replay, and the rule that decides it."""
    actual = Game.from_record({**record, "result": None}).result
    claimed = record["result"]
    if actual is None:
        return "result: the record gives a result but its actions leave the game in progress (R31)"
    expected = actual.to_dict()
    if not isinstance(claimed, dict):
        return f"result: expected an object like {json.dumps(expected)}"
    for field, value in expected.items():
        if claimed.get(field) != value:
            rule = RESULT_RULE.get(field, OUTCOME_RULE[actual.outcome])
            return (
                f"result.{field}: the record says {json.dumps(claimed.get(field), ensure_ascii=False)} "
                f"but replaying its actions gives {json.dumps(value)} ({rule})"
            )
    extra = sorted(set(claimed) - set(expected))
    return f"result: unknown field {extra[0]!r} (RECORD.md)" if extra else message


# ---- the human report -------------------------------------------------------------------------


def describe(view: SeatView, source: str | None = None) -> list[str]:
    """The report of a game from its public view (``game.view(None)``), as lines of text."""
    history = view["history"]
    plays = sum(1 for a in history if "play" in a)
    passes = sum(1 for a in history if "pass" in a)
    count = (
        f"{len(history)} action{'s' * (len(history) != 1)}: {plays} play{'s' * (plays != 1)}, "
        f"{passes} pass{'es' * (passes != 1)}"
    )
    over = view["over"]
    title = both("对局结束", "game over") if over else both("对局进行中", "game in progress")
    lines = [f"{title} — {count}" + (f" ({source})" if source else "")]
    return lines + (_finished(view) if over else _in_progress(view))


def _finished(view: SeatView) -> list[str]:
    result = view["result"]
    mode, outcome, black = result["mode"], result["outcome"], result["black"]
    finish, scores = result["finish"], result["scores"]
    marks = _black_holders(view["dealt"])
    black_text = ", ".join(f"seat {seat} ({marks[seat]})" for seat in black)
    fields = [
        (both("模式", "mode"), mode_name(mode, "both")),
        (both("先抓牌者", "first drawer"), f"seat {view['first_drawer']}"),
        (both("黑方", "black side"), black_text),
        (both("结果", "outcome"), f"{outcome_name(outcome, 'both')} ({OUTCOME_RULE[outcome]})"),
    ]
    escaped = [a["seat"] for a in view["history"] if a.get("escape")]
    if escaped:
        fields.append((both("逃跑", "escaped"), f"seat {escaped[0]}, -9 (R35)"))
    else:
        fields.append((both("胜方", "winner"), _winner(result)))
    lines = _fields(fields)
    rows = [
        [
            both("座位", "seat"),
            both("阵营", "side"),
            both("名次", "place"),
            both("积分", "score"),
            both("余牌", "cards left"),
        ]
    ]
    for seat in range(4):
        side = "double" if mode == "1v3" and seat in black else "black" if seat in black else "red"
        if seat in finish:
            place = place_name(finish.index(seat), "both")
        elif outcome == "escape":
            place = "—"  # the game was abandoned: no places beyond those already taken
        else:
            place = place_name(3, "both")  # R30: still holding cards at the end
        rows.append(
            [
                str(seat),
                side_name(side, "both"),
                place,
                _signed(scores[seat]),
                cards_text(view["hands"][seat]),
            ]
        )
    return [*lines, "", *_table(rows)]


def _in_progress(view: SeatView) -> list[str]:
    marks = view["marks"]
    shown = [seat for seat in range(4) if marks[seat]]
    if len(shown) == 1 and len(marks[shown[0]]) == 2:
        mode = f"{mode_name('1v3', 'both')}: seat {shown[0]} has shown ♠3 and ♠2 (R11)"
    elif len(shown) == 2:
        mode = f"{mode_name('2v2', 'both')}: seats {shown[0]} and {shown[1]} have shown ♠3 and ♠2 (R11)"
    else:
        mode = "hidden until both 牛鬼 cards are played or the game ends (R11)"
    lines = _fields(
        [
            (both("模式", "mode"), mode),
            (both("先抓牌者", "first drawer"), f"seat {view['first_drawer']}"),
            (both("轮到", "to move"), f"seat {view['to_move']}"),
        ]
    )
    finish = view["finish"]
    rows = [[both("座位", "seat"), both("张数", "cards"), both("标记", "marks"), both("名次", "place")]]
    for seat in range(4):
        place = place_name(finish.index(seat), "both") if seat in finish else ""
        rows.append([str(seat), str(view["counts"][seat]), cards_text(marks[seat]), place])
    lines += ["", *_table(rows), ""]
    current = view["current"]
    if current is None:
        lines.append(both("本轮", "this trick") + f": seat {view['to_move']} has the lead (R29)")
    else:
        beat = f"{play_text(current['play'], current['kind'])}, seat {current['seat']}"
        lines.append(both("本轮", "this trick") + f" (to beat: {beat})")
        lines += action_lines(view["trick"], numbered=False)
    return lines


def action_lines(actions: Sequence[ActionEntry], numbered: bool = True) -> list[str]:
    """One line per action: ``#3  seat 1  对子 pair ♦5 ♣5`` or ``seat 2  过门 pass``."""
    lines = []
    for index, action in enumerate(actions):
        if "play" in action:
            what = play_text(action["play"], action["kind"])
        elif action.get("pass"):
            what = both(PASS_ZH, PASS_EN)
        else:
            what = both(ESCAPE_ZH, ESCAPE_EN) + " (R35)"
        prefix = f"#{index:<4}" if numbered else ""
        lines.append(f"  {prefix}seat {action['seat']}  {what}")
    return lines


def _winner(result: ResultDict) -> str:
    """The side of the 上游 (R32), or a draw."""
    black, finish = result["black"], result["finish"]
    if not any(result["scores"]):
        return both("无", "none") + " (a draw: no score changes)"
    seats = black if finish[0] in black else [s for s in range(4) if s not in black]
    side = "double" if len(seats) == 1 else "black" if seats == black else "red"
    return f"{side_name(side, 'both')}, seat{'s' * (len(seats) > 1)} {', '.join(map(str, seats))} (R32)"


def _black_holders(dealt: list[list[str]]) -> dict[int, str]:
    """Seat → the marks it was dealt (``♠3``, ``♠2`` or both)."""
    return {
        seat: " ".join(cards_text([c]) for c in ("S3", "S2") if c in hand)
        for seat, hand in enumerate(dealt)
        if "S3" in hand or "S2" in hand
    }


def _signed(score: int) -> str:
    return f"+{score}" if score > 0 else "0" if score == 0 else f"-{-score}"


def _pad(text: str, width: int) -> str:
    """Pad to ``width`` terminal cells (a Chinese character takes two)."""
    return text + " " * (width - cell_len(text))


def _fields(pairs: list[tuple[str, str]]) -> list[str]:
    width = max(cell_len(label) for label, _ in pairs) + 2
    return [_pad(label, width) + value for label, value in pairs]


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(cell_len(row[col]) for row in rows) + 2 for col in range(len(rows[0]))]
    return ["".join(_pad(cell, w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
