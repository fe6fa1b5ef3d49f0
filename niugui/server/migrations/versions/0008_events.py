"""Events (issue 30): an event of any kind (duplicate, Swiss), a duplicate event's boards (each a
committed deal and a seat) and its entries (who played which board, at which table).

Revision ID: 0008_events
Revises: 0007_friends
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_events"
down_revision: str | None = "0007_friends"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("club", sa.String(16), nullable=True),
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("listed", sa.Boolean, nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("starts_at", sa.Float, nullable=False),
        sa.Column("ends_at", sa.Float, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("daily_date", sa.String(10), nullable=True, unique=True),
    )
    op.create_index("ix_events_club", "events", ["club"])
    op.create_index("ix_events_ends_at", "events", ["ends_at"])
    op.create_table(
        "event_boards",
        sa.Column("event_id", sa.String(16), sa.ForeignKey("events.id"), primary_key=True),
        sa.Column("board", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("flip", sa.String(4), nullable=False),
        sa.Column("deck", sa.Text, nullable=False),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
    )
    op.create_table(
        "event_entries",
        sa.Column("event_id", sa.String(16), sa.ForeignKey("events.id"), primary_key=True),
        sa.Column("account_id", sa.String(32), primary_key=True),
        sa.Column("board", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("nickname", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
    )
    op.create_index("ix_event_entries_account_id", "event_entries", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_event_entries_account_id", "event_entries")
    op.drop_table("event_entries")
    op.drop_table("event_boards")
    op.drop_index("ix_events_ends_at", "events")
    op.drop_index("ix_events_club", "events")
    op.drop_table("events")
