"""Friends and blocks (issue 29): friend requests (a friendship is a request each way) and blocks.

Revision ID: 0007_friends
Revises: 0007_clubs
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_friends"
down_revision: str | None = "0007_clubs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "friend_requests",
        sa.Column("asker", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("asked", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_friend_requests_asked", "friend_requests", ["asked"])
    op.create_table(
        "blocks",
        sa.Column("blocker", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("blocked", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("blocks")
    op.drop_index("ix_friend_requests_asked", "friend_requests")
    op.drop_table("friend_requests")
