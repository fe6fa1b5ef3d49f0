"""Nicknames: normalised (NFKC), refused when they hide characters or pass for someone they are not.

A nickname is shown to everyone at a table, so it must look like what it is (issue 33, finding 10):

- it is NFKC-normalised (full-width letters, ligatures and compatibility forms become plain ones)
  and trimmed, and must still be 1–24 characters;
- control, format (bidi overrides, zero-width), private-use, surrogate and unassigned characters,
  and separators other than a plain space, are refused (``bad_nickname``);
- names that pass for a server bot ("expert bot 1", "高手机器人"), a system word ("系统", "admin",
  "quick-play") or anything with "机器人" are reserved (``reserved_nickname``), compared on the
  name's *skeleton* (:func:`skeleton`) without its digits, so "Expert-Bot 1" and "ｅｘｐｅｒｔ ｂｏｔ" are
  the same;
- so is the name of a bot account (its nickname or username, digits included), passed by the caller
  from the store.

>>> clean("  Ａｌｉｃｅ ")
'Alice'
>>> clean("ali\\u202ece")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
niugui.server.nicknames.NicknameRefused: bad_nickname: nickname: no control, bidi or invisible ... (U+202E)
>>> clean("Expert Bot 1")
Traceback (most recent call last):
...
niugui.server.nicknames.NicknameRefused: reserved_nickname: nickname: reserved for bots and the system
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Literal

from niugui.bots.levels import LEVELS

LONGEST = 24
"""The longest nickname, in characters after normalisation (as ``GuestRequest`` allows)."""

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
"""Unicode categories a nickname may not contain: controls, formats (bidi, zero-width), private use,
surrogates, unassigned, line and paragraph separators."""

BOT_WORDS = ("bot", "robot", "机器人", "电脑", "ai")
"""Words that, with a level's name or label, make a server bot's name."""

SYSTEM_WORDS = frozenset(
    {"系统", "管理员", "服务器", "官方", "客服", "system", "admin", "administrator", "root", "server",
     "moderator", "mod", "staff", "official", "support", "niugui", "牛鬼", "quickplay", "快速开始",
     "快速游戏", "匹配", "bot", "robot", "nobody", "anonymous", "匿名", "托管"}
)  # fmt: skip
"""Whole names reserved for the system, compared as skeletons."""

ALWAYS_RESERVED = ("机器人",)
"""Reserved anywhere in a name: the page's word for a bot."""


Code = Literal["blank_nickname", "bad_nickname", "reserved_nickname"]
"""The HTTP error codes of a refused nickname (``HttpErrorCode`` in protocol.py)."""


class NicknameRefused(ValueError):
    """A nickname refused: ``code`` is the HTTP error's code, the message says why in English."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def skeleton(name: str) -> str:
    """What two names are compared on: NFKC, case-folded, letters and digits only (spaces,
    punctuation and marks go).

    >>> skeleton("Ｅxpert-Bot 1")
    'expertbot1'
    >>> skeleton("高手 机器人 2")
    '高手机器人2'
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(ch for ch in folded if unicodedata.category(ch)[0] in "LN")


def _bot_names() -> frozenset[str]:
    words: set[str] = set()
    for level in LEVELS:
        for label in {level.name, level.label_zh, level.label_en}:
            words.add(skeleton(label))
            for bot in BOT_WORDS:
                words.update({skeleton(label + bot), skeleton(bot + label)})
    return frozenset(words)


RESERVED = frozenset(skeleton(word) for word in SYSTEM_WORDS) | _bot_names()
"""Every reserved skeleton: system words, each bot level's name and label, alone or with "bot"."""


def _hidden(ch: str) -> bool:
    """A character a nickname may not hold: a refused category, or a space other than U+0020."""
    return unicodedata.category(ch) in REFUSED_CATEGORIES or (ch.isspace() and ch != " ")


def clean(nickname: str, taken_by_bots: Iterable[str] = ()) -> str:
    """The nickname to store, or :class:`NicknameRefused` with a reason. ``taken_by_bots``: the skeletons of
    the bot accounts' names (nicknames and usernames).

    >>> clean("eve", taken_by_bots={"eve"})
    Traceback (most recent call last):
    ...
    niugui.server.nicknames.NicknameRefused: reserved_nickname: nickname: reserved for bots and the system
    """
    name = unicodedata.normalize("NFKC", nickname).strip()
    bad = [ch for ch in name if _hidden(ch)]
    if bad:
        shown = ", ".join(sorted({f"U+{ord(ch):04X}" for ch in bad}))
        raise NicknameRefused("bad_nickname", f"nickname: no control, bidi or invisible characters ({shown})")
    if not name:
        raise NicknameRefused("blank_nickname", "nickname: must not be blank")
    if len(name) > LONGEST:
        raise NicknameRefused("bad_nickname", f"nickname: at most {LONGEST} characters once normalised")
    shape = skeleton(name)
    letters = "".join(ch for ch in shape if not ch.isdigit())  # "expert bot 3" is a bot whatever its seat
    bots = {bot for bot in taken_by_bots if bot}
    if letters in RESERVED or shape in bots or any(word in shape for word in ALWAYS_RESERVED):
        raise NicknameRefused("reserved_nickname", "nickname: reserved for bots and the system")
    return name
