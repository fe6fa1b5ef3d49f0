"""Swiss tournaments (issue 30): a Swiss event's entrants and its progress (phase, rounds as JSON).

Revision ID: 0009_swiss
Revises: 0008_events
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_swiss"
down_revision: str | None = "0008_events"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "swiss_entrants",
        sa.Column("event_id", sa.String(16), sa.ForeignKey("events.id"), primary_key=True),
        sa.Column("account_id", sa.String(32), primary_key=True),
        sa.Column("nickname", sa.String(64), nullable=False),
        sa.Column("registered_at", sa.Float, nullable=False),
    )
    op.create_table(
        "swiss_progress",
        sa.Column("event_id", sa.String(16), sa.ForeignKey("events.id"), primary_key=True),
        sa.Column("phase", sa.String(12), nullable=False),
        sa.Column("progress", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_swiss_progress_phase", "swiss_progress", ["phase"])


def downgrade() -> None:
    op.drop_index("ix_swiss_progress_phase", "swiss_progress")
    op.drop_table("swiss_progress")
    op.drop_table("swiss_entrants")
