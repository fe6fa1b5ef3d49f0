"""A session's result card (战绩分享, issue 29): the settlement as a PNG about 1080 px wide, in Chinese,
to send to a group chat — the club and table, the date, the players with their totals and places, and
a short link back.

What the card says is decided first, as plain lines (:func:`card_lines`, what the tests read back);
:func:`render` only draws them, with a CJK font found on the system (:data:`FONTS`; ``make run``
needs one of them, e.g. Debian's ``fonts-wqy-microhei`` or ``fonts-noto-cjk``).

>>> from niugui.server.sessions import TableSession, SessionPlayer
>>> ann = SessionPlayer("a1", "阿丽", 0, False, total=9, games=2, won=1, upstream=1, best=9, place=1)
>>> bob = SessionPlayer("b2", "bob", 1, False, total=-9, games=2, place=2)
>>> session = TableSession("t1", "周五局", None, 2, 2, True, "games", 1.8e9, 1.8e9 + 3600, [ann, bob])
>>> [(line.text, line.right) for line in card_lines(session, "", "niugui.example/#/table/t1")][1:5]
[('周五局', ''), ('2027-01-15 · 2/2 局 · 打满局数', ''), ('第1名  阿丽', '+9'), ('第2名  bob', '-9')]
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Literal

from PIL import Image, ImageDraw, ImageFont

from .sessions import SessionPlayer, TableSession

WIDTH = 1080
FONTS = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/System/Library/Fonts/PingFang.ttc",
)
"""Where a CJK font is looked for, in order (the first found draws the card)."""

Style = Literal["title", "heading", "meta", "winner", "player", "link"]
SIZES: dict[Style, int] = {"title": 64, "heading": 52, "meta": 36, "winner": 48, "player": 44, "link": 32}
COLOURS: dict[Style, str] = {
    "title": "#ffe7a3",
    "heading": "#ffffff",
    "meta": "#cfe3d6",
    "winner": "#ffd24a",
    "player": "#ffffff",
    "link": "#cfe3d6",
}


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the card: its text and how it is drawn."""

    text: str
    style: Style
    right: str = ""
    """Drawn at the right edge (a player's total)."""


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def name_of(player: SessionPlayer) -> str:
    """A player's name on the card: a server bot's by its seat, as the page names it (机器人3).

    >>> name_of(SessionPlayer(None, "expert bot 2", 2, True))
    '机器人3'
    """
    return player.nickname if player.account_id is not None else f"机器人{player.seat + 1}"


def card_lines(session: TableSession, club_name: str, link: str) -> list[Line]:
    """What the card says, line by line (``club_name``: empty outside a club)."""
    when = datetime.fromtimestamp(session.ended_at or session.created_at, UTC).strftime("%Y-%m-%d")
    played = f"{session.games_played}/{session.games} 局" if session.games else f"{session.games_played} 局"
    still = "已结束" if session.finished else "进行中"
    ended = {"games": "打满局数", "dissolved": "协商解散", None: still}
    lines = [Line("牛鬼 · 结算", "title")]
    heading = " · ".join(part for part in (club_name, session.name) if part)
    if heading:
        lines.append(Line(heading, "heading"))
    lines.append(Line(f"{when} · {played} · {ended[session.ended_by]}", "meta"))
    for p in session.players:
        style: Style = "winner" if p in session.winners else "player"
        lines.append(Line(f"第{p.place}名  {name_of(p)}", style, signed(p.total)))
    winners = "、".join(name_of(p) for p in session.winners)
    if winners:
        lines.append(Line(f"本场赢家：{winners}", "winner"))
    lines.append(Line(link, "link"))
    return lines


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for path in FONTS:
        if Path(path).exists():
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)  # no CJK font: Chinese shows as boxes (docs/deploy.md)


def render(lines: list[Line]) -> bytes:
    """The card as PNG bytes: ``WIDTH`` px wide, as tall as its lines."""
    pad, gap = 72, 28
    height = pad * 2 + sum(SIZES[line.style] + gap for line in lines) + 24
    image = Image.new("RGB", (WIDTH, height), "#1f5b3a")
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((24, 24, WIDTH - 24, height - 24), radius=36, outline="#ffe7a3", width=4)
    y = pad
    for n, line in enumerate(lines):
        font = _font(SIZES[line.style])
        draw.text((pad, y), line.text, font=font, fill=COLOURS[line.style])
        if line.right:
            draw.text((WIDTH - pad, y), line.right, font=font, fill=COLOURS[line.style], anchor="ra")
        y += SIZES[line.style] + gap
        if n == 0:
            draw.line((pad, y, WIDTH - pad, y), fill="#ffe7a3", width=2)
            y += 24
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
