"""Fitting what the terminal shows to the width it has: a layout is picked by measuring it.

rich cuts a table that is wider than the terminal with ``…``; instead, each screen offers layouts from
the widest to the most compact and :func:`pick` takes the first that fits.

>>> from rich.table import Table
>>> wide, narrow = Table("a long heading", "another long heading"), Table("a", "b")
>>> pick(30, wide, narrow) is narrow, pick(80, wide, narrow) is wide
(True, True)
>>> fits(wide, 40), fits(wide, 48)
(False, True)
"""

from __future__ import annotations

import io

from rich.console import Console, RenderableType
from rich.measure import Measurement

_MEASURER = Console(width=10_000, file=io.StringIO(), color_system=None)


def measure(renderable: RenderableType) -> Measurement:
    """The narrowest width ``renderable`` can take (wrapping what wraps) and the width it takes unwrapped."""
    return Measurement.get(_MEASURER, _MEASURER.options, renderable)


def fits(renderable: RenderableType, width: int) -> bool:
    """Whether ``renderable`` takes at most ``width`` columns without wrapping anything."""
    return measure(renderable).maximum <= width


def lines_taken(renderable: RenderableType, width: int) -> int:
    """How many lines ``renderable`` takes at ``width`` columns, wrapped lines counted."""
    console = Console(width=width, file=io.StringIO(), color_system=None)
    return len(console.render_lines(renderable, console.options, pad=False))


def pick(width: int, *layouts: RenderableType) -> RenderableType:
    """The first layout that fits ``width`` unwrapped; else the first that fits with wrapping (no cell
    is cut, a long one takes two lines); else the last, the most compact."""
    for layout in layouts:
        if fits(layout, width):
            return layout
    for layout in layouts:
        if measure(layout).minimum <= width:
            return layout
    return layouts[-1]
