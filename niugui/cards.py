"""Cards, their order and their notation (RULES.md R1–R6).

A card is a small integer in single-card strength order (R5): ``rank * 4 + suit`` for the 52
suited cards, 52 for 小王 and 53 for 大王. So comparing two cards is comparing two integers, and
a set of cards is a 54-bit mask (bit ``c`` set when card ``c`` is in it).

>>> parse_cards("s3 ♠2 黑桃10 d4")
[S3, S2, ST, D4]
>>> str(Card.parse("h10")), str(Card.parse("10h"))
('HT', 'HT')
>>> Card.parse("D4") < Card.parse("S4") < Card.parse("S3") < Card.parse("BJ") < Card.parse("RJ")
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SUITS = "DCHS"
"""Suit letters in suit order (R2): ♦ < ♣ < ♥ < ♠."""
SUIT_SYMBOLS = "♦♣♥♠"
SUIT_NAMES_ZH = ("方块", "梅花", "红心", "黑桃")
RANKS = "456789TJQKA23"
"""Rank letters in rank order (R3): 4 < 5 < … < A < 2 < 3."""
RANK_NAMES = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "3")

SMALL_JOKER = 52
BIG_JOKER = 53
DECK_SIZE = 54


class Card(int):
    """One of the 54 cards; its integer value is its strength rank (R5).

    >>> c = Card.parse("♠3")
    >>> int(c), str(c), c.rank_name, c.suit
    (51, 'S3', '3', 3)
    >>> Card(53).zh
    '大王'
    """

    __slots__ = ()

    def __new__(cls, value: int) -> Card:
        if not 0 <= value < DECK_SIZE:
            raise ValueError(f"no card has index {value} (R1: 54 cards)")
        return _CARDS[value] if _CARDS else super().__new__(cls, value)

    @property
    def is_joker(self) -> bool:
        return self >= SMALL_JOKER

    @property
    def rank(self) -> int:
        """Rank index in R3 order (0 = 4 … 12 = 3); 13 for 小王, 14 for 大王."""
        return self >> 2 if self < SMALL_JOKER else self - 39

    @property
    def suit(self) -> int:
        """Suit index in R2 order (0 = ♦ … 3 = ♠); -1 for a joker."""
        return self & 3 if self < SMALL_JOKER else -1

    @property
    def rank_name(self) -> str:
        return RANK_NAMES[self >> 2] if self < SMALL_JOKER else ""

    @property
    def code(self) -> str:
        """The canonical R6 text, e.g. ``S3``, ``HT``, ``BJ``."""
        return _CODES[self]

    @property
    def symbol(self) -> str:
        """Human text with a suit symbol, e.g. ``♠3``, ``♥10``, ``小王``."""
        if self >= SMALL_JOKER:
            return self.zh
        return SUIT_SYMBOLS[self & 3] + RANK_NAMES[self >> 2]

    @property
    def zh(self) -> str:
        """Chinese name, e.g. ``黑桃3``, ``大王``."""
        if self == SMALL_JOKER:
            return "小王"
        if self == BIG_JOKER:
            return "大王"
        return SUIT_NAMES_ZH[self & 3] + RANK_NAMES[self >> 2]

    @property
    def mask(self) -> int:
        return 1 << self

    def __str__(self) -> str:
        return _CODES[self]

    def __repr__(self) -> str:
        return _CODES[self]

    @classmethod
    def parse(cls, token: str) -> Card:
        """Read one card in any R6 notation; raise :class:`NotACard` naming the token otherwise."""
        index = _TOKEN_INDEX.get(_normalise(token))
        if index is None:
            raise NotACard(token)
        return _CARDS[index]


class NotACard(ValueError):
    """Text that is not a card (R6); ``token`` is the text, the message names it.

    >>> str(NotACard("X9")), NotACard("X9").token
    ("not a card: 'X9' (R6: write cards like S3, D4, HT, BJ, ♠3, 黑桃10)", 'X9')
    """

    def __init__(self, token: str) -> None:
        super().__init__(f"not a card: {token!r} (R6: write cards like S3, D4, HT, BJ, ♠3, 黑桃10)")
        self.token = token


def _code(index: int) -> str:
    if index == SMALL_JOKER:
        return "BJ"
    if index == BIG_JOKER:
        return "RJ"
    return SUITS[index & 3] + RANKS[index >> 2]


def _normalise(token: str) -> str:
    return token.strip().upper().replace("红桃", "红心")


def _token_table() -> dict[str, int]:
    table: dict[str, int] = {"BJ": SMALL_JOKER, "RJ": BIG_JOKER, "小王": SMALL_JOKER, "大王": BIG_JOKER}
    for index in range(SMALL_JOKER):
        suit, rank = index & 3, index >> 2
        rank_spellings = {RANKS[rank], RANK_NAMES[rank]}
        suit_spellings = {SUITS[suit], SUIT_SYMBOLS[suit], SUIT_NAMES_ZH[suit]}
        for s in suit_spellings:
            for r in rank_spellings:
                table[s + r] = index
                if s in SUITS:  # letter suits may also come after the rank: 3S, 10H
                    table[r + s] = index
    return table


_CODES: tuple[str, ...] = tuple(_code(i) for i in range(DECK_SIZE))
_TOKEN_INDEX = _token_table()
_CARDS: tuple[Card, ...] = ()
_CARDS = tuple(Card(i) for i in range(DECK_SIZE))
CARDS: tuple[Card, ...] = _CARDS
"""All 54 cards in strength order; ``CARDS[i]`` is the card with index ``i``."""

D4 = CARDS[0]
"""♦4: the weakest card, whose holder leads the first trick (R26)."""
S2 = CARDS[11 * 4 + 3]
"""♠2, 牛鬼2 (R10)."""
S3 = CARDS[12 * 4 + 3]
"""♠3, 牛鬼3 (R10)."""
FULL_MASK = (1 << DECK_SIZE) - 1
"""All 54 cards as a mask."""
BLACK_MASK = S3.mask | S2.mask
"""♠3 and ♠2, the 牛鬼 cards that mark the black side (R10), as a mask."""
CODE_INDEX: dict[str, int] = {code: index for index, code in enumerate(_CODES)}
"""Canonical code (R6, as views and records spell cards) → card index."""
JOKER_NAMES_EN = {SMALL_JOKER: "small joker", BIG_JOKER: "big joker"}
"""The jokers' English names, as a screen in English writes them and :func:`read_cards` reads them."""

_SEPARATORS = re.compile(r"[\s,，、]+")
_JOKER_WORDS = re.compile(r"(small|big)\s*joker", re.IGNORECASE)
_RUN = re.compile("|".join(re.escape(t) for t in sorted(_TOKEN_INDEX, key=len, reverse=True)))
"""Any one spelling of :data:`_TOKEN_INDEX`, the longest first: cards typed without a separator."""


def parse_cards(text: str | Iterable[str | int]) -> list[Card]:
    """Read cards separated by whitespace or commas, in any R6 notation.

    Also takes an iterable of codes or card indices. Raises :class:`NotACard` (a ``ValueError``)
    naming a bad token.

    >>> parse_cards("D4, c4")
    [D4, C4]
    >>> parse_cards("S3 X9")
    Traceback (most recent call last):
    ...
    niugui.cards.NotACard: not a card: 'X9' (R6: write cards like S3, D4, HT, BJ, ♠3, 黑桃10)
    """
    if isinstance(text, str):
        tokens: Iterable[str | int] = _tokens(text)
    else:
        tokens = text
    cards = []
    for token in tokens:
        if isinstance(token, Card):
            cards.append(token)
        elif isinstance(token, int) and not isinstance(token, bool):
            cards.append(Card(token))
        elif isinstance(token, str):
            cards.append(Card.parse(token))
        else:
            raise ValueError(f"not a card: {token!r} (R6)")
    return cards


def read_cards(text: str) -> list[Card]:
    """Cards as a person types them: any R6 notation, separated as :func:`parse_cards` reads them
    or run together (``d4c4``, ``♠3♠2``), and the jokers by their English names as the screen shows
    them. Raises :class:`NotACard` naming the first separated token that is not cards.

    >>> read_cards("s3 10h"), read_cards("d4c4h4"), read_cards("♠3♠2"), read_cards("黑桃10红桃J")
    ([S3, HT], [D4, C4, H4], [S3, S2], [ST, HJ])
    >>> read_cards("small joker, Big Joker")
    [BJ, RJ]
    >>> read_cards("d4 s33")
    Traceback (most recent call last):
    ...
    niugui.cards.NotACard: not a card: 's33' (R6: write cards like S3, D4, HT, BJ, ♠3, 黑桃10)
    """
    text = _JOKER_WORDS.sub(lambda m: " BJ " if m.group(1).lower() == "small" else " RJ ", text)
    cards: list[Card] = []
    for token in _tokens(text):
        normal = _normalise(token)
        run = [normal] if normal in _TOKEN_INDEX else _RUN.findall(normal)
        if not run or "".join(run) != normal:
            raise NotACard(token)
        cards.extend(_CARDS[_TOKEN_INDEX[piece]] for piece in run)
    return cards


def _tokens(text: str) -> list[str]:
    """The tokens of ``text`` between separators (whitespace, commas, 、)."""
    return [t for t in _SEPARATORS.split(text) if t]


def mask_of_codes(codes: Iterable[str]) -> int:
    """The mask of cards spelled canonically (R6, as views and records do); ``KeyError`` for any
    other text (:func:`parse_cards` reads every notation).

    >>> mask_of_codes(["D4", "H4"])
    5
    """
    mask = 0
    for code in codes:
        mask |= 1 << CODE_INDEX[code]
    return mask


def mask_of(cards: Iterable[int]) -> int:
    """The 54-bit mask of some cards.

    >>> mask_of(parse_cards("D4 C4"))
    3
    """
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def codes_of(mask: int) -> list[str]:
    """The codes (R6) of a mask's cards, weakest first: ``cards_of`` spelled out, without making a
    ``Card`` for each (views spell every hand and play this way; the spellings of recent masks are
    kept, a fresh list returned each time).

    >>> codes_of(0b101)
    ['D4', 'H4']
    """
    spelled = _SPELLED.get(mask)
    if spelled is None:
        out = []
        rest = mask
        while rest:
            low = rest & -rest
            out.append(_CODES[low.bit_length() - 1])
            rest ^= low
        if len(_SPELLED) >= _SPELLED_MAX:
            _SPELLED.clear()
        spelled = _SPELLED[mask] = tuple(out)
    return list(spelled)


_SPELLED: dict[int, tuple[str, ...]] = {}
_SPELLED_MAX = 1 << 16
"""Masks whose spelling is kept (plays and hands seen lately); a pure function's memo, no state."""


def cards_of(mask: int) -> list[Card]:
    """The cards of a mask, weakest first.

    >>> cards_of(0b101)
    [D4, H4]
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(_CARDS[low.bit_length() - 1])
        mask ^= low
    return out

