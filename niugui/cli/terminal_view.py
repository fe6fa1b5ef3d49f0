"""What the terminal game shows, built only from one seat's view (``game.view(seat)``), with rich.

Nothing here ever sees a ``Game``: every function takes the JSON view the engine hands to that
seat, so the screen can show no more than the seat may know (R11, R12).

>>> from niugui import Game
>>> view = Game.deal(seed=7, first_drawer=0).view(2)
>>> plain(hand_line(view, "en"))
'Your hand (13 cards): ♦4 ♥5 ♥6 ♦7 ♣8 ♥8 ♠10 ♥J ♦Q ♠K ♦A ♣A ♣2'
>>> plain(turn_line(view, "zh"))
'轮到你了 — 你（座位2）有任意出牌权'
"""

from __future__ import annotations

import functools
import io
from collections.abc import Iterable, Sequence
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..cards import Card, parse_cards
from ..combos import FLUSH, FOUR_PLUS_ONE, FULL_HOUSE, PAIR, STRAIGHT, TRIPLE, classify
from ..game import ActionEntry, ResultDict, SeatView
from . import text
from .i18n import (
    join,
    kind_name,
    mode_name,
    ordinal,
    outcome_plain,
    outcome_text,
    place_name,
    relative_name,
    side_name,
    tr,
)
from .layout import fits, lines_taken, pick

View = SeatView

RED = "bold red"
BLACK = "bold"
MARK = "bold white on black"


def card_text(code: str, lang: str = "zh") -> Text:
    """One card, coloured: ♥ and ♦ red, ♠ and ♣ plain; 小王 plain, 大王 red ("small joker" and
    "big joker" in English)."""
    card = Card.parse(code)
    red = card.code == "RJ" if card.is_joker else card.suit in (0, 2)
    return Text(text.card_text(card, "en" if lang == "en" else "zh"), style=RED if red else BLACK)


def cards_text(codes: Iterable[str], lang: str = "zh") -> Text:
    """Cards side by side, weakest first (R5)."""
    ordered = sorted(Card.parse(c) for c in codes)
    return Text(" ").join(card_text(c.code, lang) for c in ordered)


def play_text(codes: Sequence[str], kind: str, lang: str = "zh") -> Text:
    """A play's cards, coloured, in the order people read them (:func:`niugui.cli.text.play_order`)."""
    return Text(" ").join(card_text(c.code, lang) for c in text.play_order(codes, kind))


def plain(renderable: RenderableType, width: int = 120) -> str:
    """A renderable as plain text without colour (for tests and logs)."""
    console = _plain_console(width)
    with console.capture() as capture:
        console.print(renderable)
    return capture.get().rstrip("\n")


def with_cards(lang: str, key: str, cards: Text, style: str = "", **values: Any) -> Text:
    """The text ``key`` with coloured ``cards`` in place of its ``{cards}`` field."""
    before, _, after = tr(lang, key, cards="\x00", **values).partition("\x00")
    return Text(before, style=style).append_text(cards).append(after, style=style)


@functools.cache
def _plain_console(width: int) -> Console:
    return Console(width=width, color_system=None, force_terminal=False, file=io.StringIO())


def who(view: View, seat: int, lang: str) -> str:
    """A seat named from the viewer's place: 你 / 下家 / 对家 / 上家 with its number."""
    return seat_name(view.get("seat"), seat, lang)


def seat_name(me: int | None, seat: int, lang: str) -> str:
    """:func:`who` for a viewer in seat ``me`` (``None``: a spectator)."""
    if me is None:
        return tr(lang, "seat_name", seat=seat)
    return tr(lang, "who", rel=relative_name(lang, seat - me), seat=seat)


def place_of(view: View, seat: int, lang: str) -> str:
    """The seat's finish place (上游 …), or ``—`` while it still plays (R30)."""
    finish: list[int] = view["finish"]
    if seat in finish:
        return place_name(lang, finish.index(seat))
    result = view.get("result")
    if result is None:
        return tr(lang, "none")
    if result["outcome"] == "escape":
        escaped = any(e.get("escape") and e["seat"] == seat for e in view["history"])
        return tr(lang, "escaped") if escaped else tr(lang, "none")
    return place_name(lang, 3)


def action_text(view: View, entry: ActionEntry, lang: str) -> Text:
    """One history or trick entry: who played what, passed, or escaped."""
    name = who(view, entry["seat"], lang)
    if "play" in entry:
        cards = play_text(entry["play"], entry["kind"], lang)
        return with_cards(lang, "plays", cards, who=name, kind=kind_name(lang, entry["kind"]))
    if entry.get("escape"):
        return Text(tr(lang, "escapes", who=name), style="bold magenta")
    return Text(tr(lang, "passes", who=name), style="dim")


def side_of(result: ResultDict, seat: int) -> str:
    """``black``, ``red`` or ``double``: the seat's side in a finished game (R10)."""
    if seat in result["black"]:
        return "double" if result["mode"] == "1v3" else "black"
    return "red"


def seats_table(view: View, lang: str, bots: dict[int, str] | None = None) -> Table:
    """Every seat: who (and which bot plays it), cards left, ♠3/♠2 marks, finish place, and its part
    in this trick."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, expand=False)
    table.add_column(tr(lang, "col_player"), no_wrap=True)
    if bots:
        table.add_column(tr(lang, "col_bot"))
    table.add_column(tr(lang, "col_cards"), justify="right", no_wrap=True)
    table.add_column(tr(lang, "col_marks"), no_wrap=True)
    table.add_column(tr(lang, "col_place"), no_wrap=True)
    table.add_column(tr(lang, "col_trick"))
    last_in_trick: dict[int, ActionEntry] = {e["seat"]: e for e in view["trick"]}
    for seat in range(4):
        if view["marks"][seat]:
            marks = cards_text(view["marks"][seat], lang)
            marks.stylize(MARK)
        else:
            marks = Text(tr(lang, "none"))
        entry = last_in_trick.get(seat)
        if entry is None:
            trick = Text("")
        elif "play" in entry:
            trick = play_text(entry["play"], entry["kind"], lang)
        else:
            trick = Text(tr(lang, "pass_word"), style="dim")
        name = Text(who(view, seat, lang), style="bold reverse" if seat == view["to_move"] else "")
        row: list[RenderableType] = [name]
        if bots:
            row.append(Text(bots.get(seat, ""), style="dim"))
        row += [str(view["counts"][seat]), marks, place_of(view, seat, lang), trick]
        table.add_row(*row)
    return table


def trick_line(view: View, lang: str) -> Text:
    """The play to beat and who played it, or who holds the free lead."""
    current = view["current"]
    if current is None:
        if view["to_move"] is None:
            return Text("")
        return Text(tr(lang, "free_lead", who=who(view, view["to_move"], lang)))
    cards = play_text(current["play"], current["kind"], lang)
    return with_cards(lang, "to_beat", cards, who=who(view, current["seat"], lang),
                      kind=kind_name(lang, current["kind"]))


def turn_line(view: View, lang: str) -> Text:
    """Whose turn it is, and whether there is a play to beat."""
    to_move = view["to_move"]
    if to_move is None:
        return Text("")
    mine = to_move == view.get("seat")
    head = tr(lang, "your_turn") if mine else tr(lang, "turn", who=who(view, to_move, lang))
    return Text(head + " — ", style="bold").append_text(trick_line(view, lang))


def hand_line(view: View, lang: str) -> Text:
    """The viewer's hand, sorted weakest first and coloured."""
    hand: list[str] = view.get("hand", [])
    return Text(tr(lang, "your_hand", n=len(hand)), style="bold").append_text(cards_text(hand, lang))


def side_line(view: View, lang: str) -> Text | None:
    """The side the viewer's own dealt hand tells it (R10, R11), from its own view's ``side``; None in
    a spectator's view. A black seat's partner holds the other black card, the one neither in its
    hand nor among its own marks.

    >>> from niugui import Game
    >>> game = Game.deal(seed=7, first_drawer=0)
    >>> print(plain(side_line(game.view(0), "en")))
    Black side (you): your partner holds the 3 of spades (R10)
    >>> print(plain(side_line(game.view(1), "zh")))
    你是红方 · 对手持牛鬼3和牛鬼2，队友未知（R10）
    >>> plain(side_line(Game.deal(seed=2, first_drawer=0).view(0), "zh")), side_line(game.view(None), "zh")
    ('你是双牛鬼 · 一打三（R10）', None)
    """
    side = view.get("side")
    if side is None:
        return None
    seat = view["seat"]
    mine = [*view.get("hand", []), *(view["marks"][seat] if seat is not None else [])]
    two = "S3" in mine  # the partner's card, named in words (no card of another seat is drawn)
    card, card_en = ("牛鬼2", "2 of spades") if two else ("牛鬼3", "3 of spades")
    style = {"black": "bold", "double": "bold yellow", "red": "bold red"}[side]
    return Text(tr(lang, f"side_{side}", card=card, card_en=card_en), style=style)


def status(view: View, lang: str, bots: dict[int, str] | None = None, width: int = 120) -> Group:
    """The whole table as the viewer sees it: seats, the trick, whose turn, and the hand."""
    table = pick(width, seats_table(view, lang, bots), seats_table(view, lang))
    parts: list[RenderableType] = [table, turn_line(view, lang)]
    if view.get("seat") is not None:
        side = side_line(view, lang)
        if side is not None:
            parts.append(side)
        parts.append(hand_line(view, lang))
        if view["to_move"] == view["seat"] and view["can_pass"] and not view["legal_plays"]:
            parts.append(Text(tr(lang, "hint_only_pass"), style="yellow"))
    return Group(*parts)


def play_class(play: Sequence[str]) -> tuple[object, ...]:
    """What makes plays alike for a hint: the same kind and the part of it that counts, so a triple
    with any pair is one class (R20), and so is a four with any single (R21), a flush with the same
    top card (R19), a straight on the same ranks (R18) or a pair or triple of one rank (R14, R15).

    >>> play_class(["D5", "C5", "HJ", "SJ", "CJ"]) == play_class(["D6", "C6", "HJ", "SJ", "CJ"])
    True
    >>> play_class(["D5"]) == play_class(["C5"])
    False
    """
    cards = parse_cards(list(play))
    combo = classify(cards)
    if combo is None:
        return ("", tuple(play))
    if combo.kind in (FULL_HOUSE, FOUR_PLUS_ONE, FLUSH):
        return (combo.kind, combo.value)
    if combo.kind in (PAIR, TRIPLE, STRAIGHT):
        return (combo.kind, tuple(sorted({card.rank for card in cards})))
    return (combo.kind, combo.mask)


def hints(view: View, lang: str, width: int = 120, height: int = 50, full: bool = False) -> Group:
    """The viewer's legal plays by kind, numbered from 1 in the view's order: one play of each class
    (:func:`play_class`) with how many more are alike, in at most ``height`` lines — or, with
    ``full``, every play. Then whether it may pass. With nothing playable, that alone."""
    plays: list[list[str]] = view["legal_plays"]
    if not plays:
        return Group(Text(tr(lang, "hint_only_pass"), style="yellow"))
    classes: dict[tuple[object, ...], list[int]] = {}
    for index, play in enumerate(plays):
        classes.setdefault(play_class(play), []).append(index)
    by_kind: dict[str, list[tuple[int, int]]] = {}  # kind -> [(index shown, how many more alike)]
    for key, members in classes.items():
        shown = [(i, 0) for i in members] if full else [(members[0], len(members) - 1)]
        by_kind.setdefault(str(key[0]), []).extend(shown)
    label_width = max(cell_len(kind_name(lang, kind)) for kind in by_kind) + 2
    blocks = [
        _packed(kind_name(lang, kind), label_width,
                [_hint_entry(i, plays[i], kind, more, lang) for i, more in shown], width)
        for kind, shown in by_kind.items()
    ]
    head = Text(tr(lang, "hint_title"), style="bold")
    tail = [Text(tr(lang, "hint_pass") if view["can_pass"] else tr(lang, "hint_no_pass"), style="dim")]
    if any(more for shown in by_kind.values() for _, more in shown):
        tail.insert(0, Text(tr(lang, "hint_more"), style="dim"))
    lines: list[Text] = []
    budget = height - 2 - len(tail)  # the title, the list, the tail and the prompt after it
    for number, block in enumerate(blocks):
        if not full and len(lines) + len(block) > budget - (number < len(blocks) - 1):
            lines.append(Text(tr(lang, "hint_cut", n=len(blocks) - number), style="dim"))
            break
        lines += block
    return Group(head, *lines, *tail)


def _hint_entry(index: int, play: Sequence[str], kind: str, more: int, lang: str) -> Text:
    entry = Text(f"[{index + 1}] ").append_text(play_text(play, kind, lang))
    return entry.append(f" (+{more})", style="dim") if more else entry


def _packed(label: str, label_width: int, entries: list[Text], width: int) -> list[Text]:
    """``entries`` after ``label``, as many on a line as ``width`` allows, later lines indented."""
    lines: list[Text] = []
    line = Text("  " + label + " " * (label_width - cell_len(label)))
    empty = True
    for entry in entries:
        if not empty and line.cell_len + 2 + entry.cell_len > width:
            lines.append(line)
            line, empty = Text(" " * (label_width + 2)), True
        if not empty:
            line.append("  ")
        line.append_text(entry)
        empty = False
    lines.append(line)
    return lines


def changes(before: View | None, after: View, lang: str) -> list[Text]:
    """What happened between two views of one seat: new actions, marks shown, seats out, trick ends."""
    seen = len(before["history"]) if before else 0
    lines: list[Text] = []
    for index, entry in enumerate(after["history"][seen:], start=seen):
        lines.append(action_text(after, entry, lang))
        seat = entry["seat"]
        old_marks: Sequence[str] = before["marks"][seat] if before else []
        for code in entry.get("play", []):
            if code in after["marks"][seat] and code not in old_marks:
                lines.append(with_cards(lang, "mark_shown", card_text(code, lang), style="bold",
                                        who=who(after, seat, lang)))
        if "play" in entry and seat in after["finish"] and (before is None or seat not in before["finish"]):
            place = after["finish"].index(seat)
            out = tr(lang, "goes_out", who=who(after, seat, lang), place=place_name("zh", place),
                     ordinal=ordinal(lang, place))
            lines.append(Text(out, style="bold green"))
        last = index == len(after["history"]) - 1
        if last and "pass" in entry and not after["trick"] and after["to_move"] is not None:
            winner = _trick_winner(after["history"])
            key = "trick_won" if winner == after["to_move"] else "trick_won_out"
            lead = who(after, after["to_move"], lang)
            lines.append(Text(tr(lang, key, who=who(after, winner, lang), lead=lead), style="cyan"))
    return lines


def _trick_winner(history: list[ActionEntry]) -> int:
    """The seat of the last play in the history (the trick just ended)."""
    for entry in reversed(history):
        if "play" in entry:
            seat: int = entry["seat"]
            return seat
    raise ValueError("no play in the history")


def score_text(change: int) -> Text:
    """A score or total, signed and coloured: +2 green, -2 red, 0 plain."""
    return Text(f"{change:+d}" if change else "0", style="green" if change > 0 else "red" if change else "")


def winner_line(view: View, lang: str) -> Text:
    """Who won a finished game (R32): the side and its seats; or who escaped (R35); or a draw."""
    result = view["result"]
    scores: list[int] = result["scores"]
    if result["outcome"] == "escape":
        escaped = next(e["seat"] for e in view["history"] if e.get("escape"))
        name = who(view, escaped, lang)
        return Text(tr(lang, "escaped_by", who=name), style="bold magenta")
    winners = [seat for seat in range(4) if scores[seat] > 0]
    if not winners:
        return Text(tr(lang, "no_winner"), style="bold yellow")
    side = side_name(lang, side_of(result, winners[0]))
    seats = join(lang, [who(view, seat, lang) for seat in winners])
    mine = view.get("seat") in winners
    return Text(tr(lang, "winner", side=side, seats=seats), style="bold green" if mine else "bold red")


def personal_line(view: View, lang: str) -> Text | None:
    """What a finished game means for the viewer (R32–R35): won or lost with its score change, a
    draw, or an escape (its own, or another's, which leaves its score alone); None for a spectator.

    >>> from niugui import Game
    >>> game = Game.deal(seed=7, first_drawer=0)
    >>> game.escape(1)
    >>> plain(personal_line(game.view(1), "zh")), plain(personal_line(game.view(0), "en"))
    ('你逃跑了 -9', 'Right (seat 1) escaped: no score for you this game')
    """
    seat = view.get("seat")
    if seat is None:
        return None
    result = view["result"]
    change: int = result["scores"][seat]
    signed = f"{change:+d}"
    if result["outcome"] == "escape":
        if change < 0:
            return Text(tr(lang, "you_escaped", change=signed), style="bold red")
        escaped = next(e["seat"] for e in view["history"] if e.get("escape"))
        return Text(tr(lang, "you_unscored", who=who(view, escaped, lang)), style="bold yellow")
    if change > 0:
        return Text(tr(lang, "you_won", change=signed), style="bold green")
    if change < 0:
        return Text(tr(lang, "you_lost", change=signed), style="bold red")
    return Text(tr(lang, "you_draw"), style="bold yellow")


def result_panel(view: View, lang: str, totals: Sequence[int], games: int,
                 bots: dict[int, str] | None = None, width: int = 120, height: int = 50) -> Group:
    """The end of a game from its final view: what it means for you (:func:`personal_line`), who won
    and the outcome with what it scores and, in plain words, what it means (R32–R35),
    then per seat its side, place, score change and running total (R36), and the hands (R11).
    Laid out to fit ``width`` × ``height``: with the bots and the dealt hands when there is room, else
    compact (the cards still held only), else without the cards (80×24)."""
    result = view["result"]
    mine = personal_line(view, lang)
    head: list[RenderableType] = [
        Text(tr(lang, "game_over"), style="bold yellow"),
        *([mine] if mine is not None else []),
        winner_line(view, lang),
        Text(tr(lang, "outcome", outcome=outcome_text(lang, result["outcome"]))),
        Text("  " + outcome_plain(lang, result["outcome"]), style="italic"),
        Text(tr(lang, "mode", mode=mode_name(lang, result["mode"]))),
    ]
    left = _left(view, lang)
    wide = Group(*head, _result_table(view, lang, totals, games, bots), *left, *_dealt(view, lang))
    if fits(wide, width) and lines_taken(wide, width) <= height - RESULT_FOOTER_LINES:
        return wide
    table = _result_table(view, lang, totals, games, None)
    if not fits(table, width):  # (the lines of cards may wrap; a table must not)
        table = _result_table(view, lang, totals, games, None, short=True)
    compact = Group(*head, table, *left)
    if lines_taken(compact, width) <= height - RESULT_FOOTER_LINES:
        return compact
    return Group(*head, table)  # a short screen: the cards still held are in the saved record


RESULT_FOOTER_LINES = 7
"""Lines the game-over screen keeps below the panel: where the record went, how to replay it (two
lines each when narrow) and the next question."""


def _result_table(view: View, lang: str, totals: Sequence[int], games: int,
                  bots: dict[int, str] | None, short: bool = False) -> Table:
    result = view["result"]
    table = Table(title=tr(lang, "totals_title", n=games), box=box.SIMPLE_HEAD, pad_edge=False,
                  show_edge=False, title_justify="left")
    table.add_column(tr(lang, "col_player"), no_wrap=True)
    if bots:
        table.add_column(tr(lang, "col_bot"), no_wrap=True)
    for key in ("col_side", "col_place"):
        table.add_column(tr(lang, key), no_wrap=True)
    for key in ("col_change_short" if short else "col_change", "col_total"):
        table.add_column(tr(lang, key), justify="right", no_wrap=True)
    for seat in range(4):
        row: list[RenderableType] = [who(view, seat, lang)]
        if bots:
            row.append(Text(bots.get(seat, ""), style="dim"))
        row += [side_name(lang, side_of(result, seat)), place_of(view, seat, lang),
                score_text(result["scores"][seat]), score_text(totals[seat])]
        style = "bold" if result["scores"][seat] > 0 else ""
        if seat == view.get("seat"):  # your own row stands out
            style = f"reverse {style}".strip()
        table.add_row(*row, style=style)
    return table


def _dealt(view: View, lang: str) -> list[Text]:
    """Every seat's dealt hand, one line each (R11: all is revealed at the end)."""
    lines = [Text(tr(lang, "dealt_title"), style="bold")]
    for seat in range(4):
        lines.append(Text("  " + tr(lang, "labelled", who=who(view, seat, lang)))
                     .append_text(cards_text(view["dealt"][seat], lang)))
    return lines


def _left(view: View, lang: str) -> list[Text]:
    """The cards still held at the end, by seat; seats that went out are left out."""
    held = [seat for seat in range(4) if view["hands"][seat]]
    if not held:
        return []
    lines = [Text(tr(lang, "left_title"), style="bold")]
    for seat in held:
        lines.append(Text("  " + tr(lang, "labelled", who=who(view, seat, lang)))
                     .append_text(cards_text(view["hands"][seat], lang)))
    return lines
