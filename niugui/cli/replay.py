"""``niugui replay [--json] [--actions] FILE``: replay a game record and say how it stands or ended.

FILE is a record (RECORD.md) or ``-`` for standard input; ``FILE:N`` is line N of a JSON-lines file
(one record a line, as ``niugui arena`` writes). The human report names the mode, the
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
import re
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


class ReplayFailed(Exception):
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
    parser.add_argument("file", metavar="FILE",
                        help="the record (JSON); '-' reads standard input; FILE:N replays line N of a "
                             "JSON-lines file (one record a line, as niugui arena writes)")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print only the result as JSON, exactly result.to_dict(); null for a game in progress",
    )
    parser.add_argument("--actions", action="store_true",
                        help="also list every action in order, marking trick ends, 接风 and seats going out")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Replay ``args.file``; 0 on success, 1 (one line on stderr) for a bad record."""
    name = "<stdin>" if args.file == "-" else args.file
    try:
        game = replay(load(args.file), name)
    except ReplayFailed as error:
        print(f"{PROG}: {one_line(str(error))}", file=sys.stderr)
        return 1
    if args.json:
        result = game.result
        return emit(json.dumps(None if result is None else result.to_dict(), ensure_ascii=False))
    view = game.view(None)  # only what is public; a finished game's view reveals everything
    lines = describe(view, source=name)
    if args.actions:
        lines += ["", both("出牌记录", "actions"), *annotated_actions(game)]
    return emit("\n".join(lines))


def emit(text: str) -> int:
    """Print ``text``; a reader that went away (``| head``) is no error."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no complaint at exit either
    return 0


LINE_OF_FILE = re.compile(r"^(?P<path>.+):(?P<line>[0-9]+)$")


def load(path: str) -> Any:
    """The JSON value in ``path`` (``-``: standard input), or in line N of it for ``path:N``; or
    :class:`ReplayFailed`."""
    wanted = LINE_OF_FILE.match(path)
    if wanted and os.path.exists(wanted["path"]) and not os.path.exists(path):
        return _load_line(wanted["path"], int(wanted["line"]))
    name = "<stdin>" if path == "-" else path
    text = _read(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        if error.msg == "Extra data" and _is_json_lines(text):
            count = len(text.splitlines())
            raise ReplayFailed(
                f"{name}: holds {count} records, one a line (JSON lines); "
                f"replay one with {PROG} {path}:N, N from 1 to {count}"
            ) from None
        raise ReplayFailed(f"{name}: not valid JSON: {error}") from None
    except RecursionError:
        raise ReplayFailed(f"{name}: not a record: JSON nested too deeply") from None


def _is_json_lines(text: str) -> bool:
    """Whether ``text``'s first line alone is a JSON object, as in a JSON-lines file."""
    try:
        return isinstance(json.loads(text.splitlines()[0]), dict)
    except (ValueError, IndexError, RecursionError):
        return False


def _load_line(name: str, number: int) -> Any:
    """The record on line ``number`` (from 1) of a JSON-lines file."""
    lines = _read(name).splitlines()
    if not 1 <= number <= len(lines):
        raise ReplayFailed(f"{name}:{number}: no such line; the file has {len(lines)} (lines count from 1)")
    try:
        return json.loads(lines[number - 1])
    except json.JSONDecodeError as error:
        raise ReplayFailed(f"{name}:{number}: not valid JSON: {error}") from None
    except RecursionError:
        raise ReplayFailed(f"{name}:{number}: not a record: JSON nested too deeply") from None


def _read(path: str) -> str:
    """The text of ``path`` (``-``: standard input), or :class:`ReplayFailed`."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            text = sys.stdin.buffer.read().decode("utf-8")
        else:
            with open(path, encoding="utf-8") as file:
                text = file.read()
    except OSError as error:
        raise ReplayFailed(f"{name}: cannot read the file: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ReplayFailed(f"{name}: not UTF-8 text (byte {error.start}): a record is JSON") from None
    return text


def replay(record: Any, name: str = "record") -> Game:
    """Replay a parsed record, turning the engine's errors into one :class:`ReplayFailed` line."""
    try:
        return Game.from_record(record)
    except IllegalMove as error:
        raise ReplayFailed(f"{name}: illegal action: {error}") from None
    except RecordError as error:
        if str(error).startswith("result:") and isinstance(record, dict):
            raise ReplayFailed(f"{name}: wrong result: {_result_mismatch(record, str(error))}") from None
        raise ReplayFailed(f"{name}: malformed record: {error}") from None
    except ValueError as error:  # the engine's checks of a deal or a seat
        raise ReplayFailed(f"{name}: malformed record: {error}") from None


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


def action_lines(actions: Sequence[ActionEntry], numbered: bool = True, start: int = 0) -> list[str]:
    """One line per action: ``#3  seat 1  对子 pair ♦5 ♣5`` or ``seat 2  过门 pass``."""
    lines = []
    for index, action in enumerate(actions, start=start):
        if "play" in action:
            what = play_text(action["play"], action["kind"])
        elif action.get("pass"):
            what = both(PASS_ZH, PASS_EN)
        else:
            what = both(ESCAPE_ZH, ESCAPE_EN) + " (R35)"
        prefix = f"#{index:<4}" if numbered else ""
        lines.append(f"  {prefix}seat {action['seat']}  {what}")
    return lines


def annotated_actions(game: Game) -> list[str]:
    """Every action of ``game`` (:func:`action_lines`), each followed by what it caused: a seat going
    out with its place (R30), the end of a trick and who leads next — by 接风 when the trick's
    winner is out (R29)."""
    record = game.to_record()
    record.pop("result", None)
    record.pop("meta", None)
    replayed = Game.from_record({**record, "actions": []})
    lines: list[str] = []
    for index, action in enumerate(record["actions"]):
        out_before = len(replayed.view(None)["finish"])
        seat = action["seat"]
        if "play" in action:
            replayed.play(action["play"], seat)
        elif action.get("pass"):
            replayed.pass_turn(seat)
        else:
            replayed.escape(seat)
        view = replayed.view(None)
        lines += action_lines(view["history"][-1:], start=index)
        finish = view["finish"]
        if len(finish) > out_before:
            place = place_name(len(finish) - 1, "both")
            lines.append(f"        {both('出完', 'out')}: seat {seat}, {place} (R30)")
        if "pass" in action and not view["trick"] and view["to_move"] is not None:
            winner = next(a["seat"] for a in reversed(view["history"]) if "play" in a)
            lead = view["to_move"]
            end = f"        {both('一轮结束', 'trick over')}: seat {winner} took it"
            if lead == winner:
                lines.append(f"{end}; seat {lead} leads (R29)")
            else:
                lines.append(f"{end} but is out; {both('接风', 'the lead passes on')} to seat {lead} (R29)")
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
