"""Fencing tokens: each table remembers the newest lease of the cluster node that owns it, so that a
node which lost its lease (paused, partitioned) can no longer append events (niugui/server/cluster).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("fence", sa.BigInteger, nullable=False, server_default="0"))


def downgrade() -> None:
    # ALTER TABLE … DROP COLUMN, not a batch copy: SQLite (3.35+) and PostgreSQL both drop a plain
    # column in place, and copying ``tables`` would break the foreign keys of its events and games.
    op.drop_column("tables", "fence")
