"""Sessions expire and can be revoked: when each was last used, and an index to end all of an account's.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sessions", sa.Column("last_used_at", sa.Float, nullable=True))
    op.execute("UPDATE sessions SET last_used_at = created_at")
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_sessions_account_id", "sessions")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("last_used_at")
