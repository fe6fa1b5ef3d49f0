"""A table's state before a deal, stored with the game it deals (the store's ``games.table_state``),
so that a table is rebuilt from its latest deal on — the state read back, then only the events since
— and not from its first event: a failover or a restart costs the same for a table that has played
all evening as for one that has just started (issue 32).

Every field of :class:`~.state.TableModel` is stored except what the events after it rebuild or what
is never stored: the game and its deal (the deal event that follows rebuilds both) and the sitters'
origins (address keys, unknown after a restart). The list of fields comes from the model itself, so a
field added to it is stored without an edit here (and one pydantic cannot store fails at import).

>>> from niugui.server.protocol import PlayerRef
>>> state = TableModel("t1", creator="a1", code="1234", seq=7)
>>> state.seats[2].player = PlayerRef(id="b1", nickname="bob")
>>> back = load(dump(state))
>>> back.seq, back.code, back.seat_of("b1"), back.game
(7, '1234', 2, None)
"""

from __future__ import annotations

import dataclasses
from typing import Any, get_type_hints

from pydantic import BaseModel, create_model

from .state import TableModel

REBUILT = frozenset({"game", "deal", "origins"})
"""Not stored: the game and its deal (the deal event after the saved state rebuilds them), the origins
(never stored)."""

_HINTS = get_type_hints(TableModel)
_FIELDS = tuple(f.name for f in dataclasses.fields(TableModel) if f.name not in REBUILT)
_MODEL: type[BaseModel] = create_model(  # type: ignore[call-overload]
    "SavedTableState", **{name: (_HINTS[name], ...) for name in _FIELDS}
)


def dump(state: TableModel) -> str:
    """The stored form of ``state`` (JSON) without its game, deal and origins."""
    values: dict[str, Any] = {name: getattr(state, name) for name in _FIELDS}
    return _MODEL.model_validate(values).model_dump_json()


def load(text: str) -> TableModel:
    """The state :func:`dump` stored (no game, no deal: the events after it bring them)."""
    stored = _MODEL.model_validate_json(text)
    return TableModel(**{name: getattr(stored, name) for name in _FIELDS})
