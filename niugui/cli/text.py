"""Human names for what the engine reports: outcomes, places, modes, sides and combinations.

Shared by every front end (``niugui replay``, the terminal game), so a player meets the same word
everywhere (``shared/docs/GLOSSARY.md``). Chinese comes from the engine's own tables; each name has
an English counterpart, and :func:`both` puts the two side by side.

>>> outcome_name("sweep"), outcome_name("sweep", "en"), outcome_name("double_caught", "both")
('牛鬼完胜', 'sweep', '活抓双牛 Double Niugui caught')
>>> [place_name(i, "both") for i in range(4)]
['上游 1st out', '二游 2nd out', '三游 3rd out', '下游 last']
>>> kind_name("full_house", "both"), mode_name("1v3", "both")
('三带对 full house', '一打三 one against three (1v3)')
>>> card_text("S3"), card_text("BJ", "zh"), card_text("HT", "en")
('♠3', '小王', '♥10')
>>> play_text(["H4", "D5", "DA", "C2", "S3"], "straight")
'顺子 straight ♦A ♣2 ♠3 ♥4 ♦5'
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Literal

from ..cards import JOKER_NAMES_EN, Card
from ..combos import FLUSH, FLUSH_RANK, KINDS, STRAIGHT, STRAIGHT_FLUSH, WINDOW_OF_RANKS, WINDOWS, ZH_NAMES
from ..game import OUTCOME_ZH, PLACE_ZH

Lang = Literal["zh", "en", "both"]

OUTCOME_EN: dict[str, str] = {
    "sweep": "sweep",
    "win": "win",
    "draw": "draw (no score)",
    "double_win": "Double Niugui wins",
    "double_draw": "Double Niugui gets away",
    "double_caught": "Double Niugui caught",
    "escape": "escape",
}
"""English outcome names (GLOSSARY.md); the Chinese ones are the engine's ``OUTCOME_ZH``."""

OUTCOME_RULE: dict[str, str] = {
    "sweep": "R33",
    "win": "R33",
    "draw": "R33",
    "double_win": "R34",
    "double_draw": "R34",
    "double_caught": "R34",
    "escape": "R35",
}
"""The rule that scores each outcome."""

PLACE_EN = ("1st out", "2nd out", "3rd out", "last")
"""English names of 上游, 二游, 三游, 下游 (R30)."""

MODE_ZH = {"2v2": "二对二", "1v3": "一打三"}
MODE_EN = {"2v2": "two against two (2v2)", "1v3": "one against three (1v3)"}

SIDE_ZH = {"black": "黑方", "red": "红方", "double": "双牛鬼"}
SIDE_EN = {"black": "Black side", "red": "Red side", "double": "Double Niugui"}

KIND_EN: dict[str, str] = {kind: kind.replace("_", " ") for kind in KINDS}
"""English combination names (GLOSSARY.md): ``single`` … ``straight flush``."""

PASS_ZH, PASS_EN = "过门", "pass"
ESCAPE_ZH, ESCAPE_EN = "逃跑", "escape"


def pick(zh: str, en: str, lang: Lang = "zh") -> str:
    """One name in ``lang``; ``both`` gives the Chinese then the English."""
    if lang == "zh":
        return zh
    if lang == "en":
        return en
    return both(zh, en)


def both(zh: str, en: str) -> str:
    """Chinese and English side by side: ``上游 1st out``."""
    return f"{zh} {en}"


def outcome_name(outcome: str, lang: Lang = "zh") -> str:
    """The name of a result's ``outcome`` (RECORD.md), e.g. ``免炒`` / ``draw (no score)``."""
    return pick(OUTCOME_ZH[outcome], OUTCOME_EN[outcome], lang)


def place_name(place: int, lang: Lang = "zh") -> str:
    """The name of a finish place: 0 = 上游, 1 = 二游, 2 = 三游, 3 = 下游 (R30)."""
    return pick(PLACE_ZH[place], PLACE_EN[place], lang)


def mode_name(mode: str, lang: Lang = "zh") -> str:
    """``2v2`` → 二对二, ``1v3`` → 一打三 (R10)."""
    return pick(MODE_ZH[mode], MODE_EN[mode], lang)


def side_name(side: str, lang: Lang = "zh") -> str:
    """``black`` → 黑方, ``red`` → 红方, ``double`` → 双牛鬼 (R10)."""
    return pick(SIDE_ZH[side], SIDE_EN[side], lang)


def kind_name(kind: str, lang: Lang = "zh") -> str:
    """A combination kind (``combo.kind``) by name: ``straight`` → 顺子 / straight."""
    return pick(ZH_NAMES[kind], KIND_EN[kind], lang)


def card_text(code: str | Card, lang: Lang = "both") -> str:
    """A card for people: its suit symbol and rank (``♠3``, ``♥10``) in every language; jokers are
    小王/大王, or "small joker"/"big joker" in English. The one place a card becomes text for the
    terminal."""
    card = code if isinstance(code, Card) else Card.parse(code)
    if card.is_joker:
        if lang == "en":
            return JOKER_NAMES_EN[card]
        return card.zh
    return card.symbol


def cards_text(codes: list[str], lang: Lang = "both") -> str:
    """Several cards for people, space-separated."""
    return " ".join(card_text(code, lang) for code in codes)


def play_order(codes: Iterable[str], kind: str) -> list[Card]:
    """A play's cards in the order people read them: a straight in sequence order (R4: A2345 reads
    ♦A ♣2 ♠3 ♥4 ♦5), a flush with 2 low and A high (R19), else weakest first (R5).

    >>> play_order(["DA", "D2", "D7", "D9", "DK"], "flush")
    [D2, D7, D9, DK, DA]
    """
    cards = sorted(Card.parse(code) for code in codes)
    if kind == FLUSH:
        cards.sort(key=lambda card: FLUSH_RANK[card.rank])
    elif kind in (STRAIGHT, STRAIGHT_FLUSH):
        window = WINDOWS[WINDOW_OF_RANKS[sum(1 << card.rank for card in cards)]]
        cards.sort(key=lambda card: window.index(card.rank))
    return cards


def play_text(codes: list[str], kind: str, lang: Lang = "both") -> str:
    """A play for people: its kind, then its cards in :func:`play_order`."""
    return f"{kind_name(kind, lang)} {' '.join(card_text(card, lang) for card in play_order(codes, kind))}"


def one_line(message: str) -> str:
    r"""The message with every unprintable character escaped, so text quoted from a record (which
    may hold a newline or a U+0085) cannot break the one-line error in two.

    >>> print(one_line("says " + chr(0x85) + " and" + chr(10)))
    says \x85 and\n
    """
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in message)


def record_text(record: dict[str, Any]) -> str:
    """A record as JSON laid out like the examples/ files: a key a line, a list of actions (or hands)
    an item a line, everything else on the line of its key.

    >>> print(record_text({"format": "niugui-record", "actions": [{"seat": 0, "play": ["D4"]}], "meta": {}}))
    {
      "format": "niugui-record",
      "actions": [
        {"seat": 0, "play": ["D4"]}
      ],
      "meta": {}
    }
    """

    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = []
    for key, value in record.items():
        if isinstance(value, list) and value and all(isinstance(item, list | dict) for item in value):
            items = ",\n".join(f"    {one(item)}" for item in value)
            lines.append(f"  {one(key)}: [\n{items}\n  ]")
        else:
            lines.append(f"  {one(key)}: {one(value)}")
    return "{\n" + ",\n".join(lines) + "\n}"
