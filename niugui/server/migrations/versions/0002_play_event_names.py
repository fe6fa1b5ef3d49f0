"""Protocol 2: a stored ``play`` event names its cards ``play`` (was ``cards``) and drops ``combo``.

Events are stored as they are sent, so the tables rebuilt from them after this upgrade send the new
names; downgrading puts the old names back (the combination recomputed by the engine).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels = None
depends_on = None

_events = sa.table(
    "table_events",
    sa.column("table_id", sa.String),
    sa.column("seq", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("payload", sa.Text),
)


def _rewrite(change: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(_events.c.table_id, _events.c.seq, _events.c.payload).where(_events.c.kind == "play")
    ).all()
    updates = []
    for row in rows:
        new = change(json.loads(row.payload))
        if new is not None:
            text = json.dumps(new, ensure_ascii=False, separators=(",", ":"))
            updates.append({"t": row.table_id, "s": row.seq, "p": text})
    if updates:
        connection.execute(
            _events.update()
            .where(_events.c.table_id == sa.bindparam("t"), _events.c.seq == sa.bindparam("s"))
            .values(payload=sa.bindparam("p")),
            updates,
        )


def _up(event: dict[str, Any]) -> dict[str, Any] | None:
    if "cards" not in event:
        return None
    return {"kind": "play", "seat": event["seat"], "play": event["cards"], "by": event["by"]}


def _down(event: dict[str, Any]) -> dict[str, Any] | None:
    from niugui.cards import parse_cards
    from niugui.combos import classify

    if "play" not in event:
        return None
    combo = classify(parse_cards(event["play"]))
    kind = combo.kind if combo is not None else "?"
    return {"kind": "play", "seat": event["seat"], "cards": event["play"], "combo": kind, "by": event["by"]}


def upgrade() -> None:
    _rewrite(_up)


def downgrade() -> None:
    _rewrite(_down)
