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

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..cards import Card, parse_cards
from ..combos import classify
from ..game import ActionEntry, SeatView
from . import text
from .i18n import kind_name, mode_name, outcome_name, place_name, relative_name, tr

View = SeatView

RED = "bold red"
BLACK = "bold"
MARK = "bold white on black"


def card_text(code: str, lang: str = "zh") -> Text:
    """One card, coloured: ♥ and ♦ red, ♠ and ♣ plain; 小王 plain, 大王 red (codes BJ/RJ in English)."""
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


def seats_table(view: View, lang: str) -> Table:
    """Every seat: who, cards left, ♠3/♠2 marks, finish place, and its part in this trick."""
    table = Table(show_edge=True, pad_edge=False, expand=False)
    for key in ("col_player", "col_cards", "col_marks", "col_place", "col_trick"):
        table.add_column(tr(lang, key))
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
        table.add_row(name, str(view["counts"][seat]), marks, place_of(view, seat, lang), trick)
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


def status(view: View, lang: str) -> Group:
    """The whole table as the viewer sees it: seats, the trick, whose turn, and the hand."""
    parts: list[RenderableType] = [seats_table(view, lang), turn_line(view, lang)]
    if view.get("seat") is not None:
        parts.append(hand_line(view, lang))
        if view["to_move"] == view["seat"] and view["can_pass"] and not view["legal_plays"]:
            parts.append(Text(tr(lang, "hint_none") + " — " + tr(lang, "hint_pass"), style="yellow"))
    return Group(*parts)


def hints(view: View, lang: str) -> Group:
    """The viewer's legal plays, numbered from 1 in the view's order, and whether it may pass."""
    lines: list[RenderableType] = [Text(tr(lang, "hint_title"), style="bold")]
    for number, play in enumerate(view["legal_plays"], start=1):
        combo = classify(parse_cards(play))
        kind = combo.kind if combo else ""
        lines.append(Text(f"  [{number}] {kind_name(lang, kind)} ").append_text(play_text(play, kind, lang)))
    if not view["legal_plays"]:
        lines.append(Text(tr(lang, "hint_none")))
    lines.append(Text(tr(lang, "hint_pass") if view["can_pass"] else tr(lang, "hint_no_pass"), style="dim"))
    return Group(*lines)


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
            place = place_name(lang, after["finish"].index(seat))
            out = tr(lang, "goes_out", who=who(after, seat, lang), place=place)
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
    """A score change, signed and coloured: +2 green, −2 red, 0 plain."""
    return Text(f"{change:+d}" if change else "0", style="green" if change > 0 else "red" if change else "")


def result_panel(view: View, lang: str, totals: Sequence[int], games: int) -> Group:
    """The end of a game from the final view: outcome by name, score changes, totals, all hands."""
    result = view["result"]
    parts: list[RenderableType] = [
        Text(tr(lang, "game_over", outcome=outcome_name(lang, result["outcome"])), style="bold yellow"),
        Text(tr(lang, "mode", mode=mode_name(lang, result["mode"]),
                black=", ".join(who(view, s, lang) for s in result["black"]))),
    ]
    table = Table(title=tr(lang, "totals_title", games=games))
    for key in ("col_player", "col_place", "col_change", "col_total", "col_hand", "col_dealt"):
        table.add_column(tr(lang, key))
    for seat in range(4):
        change = result["scores"][seat]
        table.add_row(
            who(view, seat, lang),
            place_of(view, seat, lang),
            score_text(change),
            str(totals[seat]),
            cards_text(view["hands"][seat], lang),
            cards_text(view["dealt"][seat], lang),
        )
    parts.append(table)
    return Group(*parts)
