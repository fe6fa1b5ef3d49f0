"""Clubs (俱乐部): a club, its members with their roles, and the tables created in it (issue 29).

Revision ID: 0007_clubs
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_clubs"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("description", sa.String(200), nullable=False),
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("invite_code", sa.String(16), nullable=False),
        sa.Column("by_request", sa.Boolean, nullable=False),
        sa.Column("preset", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "club_members",
        sa.Column("club_id", sa.String(16), sa.ForeignKey("clubs.id"), primary_key=True),
        sa.Column("account_id", sa.String(32), primary_key=True),
        sa.Column("role", sa.String(8), nullable=False),
        sa.Column("joined_at", sa.Float, nullable=False),
    )
    op.create_index("ix_club_members_account_id", "club_members", ["account_id"])
    op.create_table(
        "club_tables",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("club_id", sa.String(16), sa.ForeignKey("clubs.id"), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_club_tables_club_id", "club_tables", ["club_id"])


def downgrade() -> None:
    op.drop_table("club_tables")
    op.drop_table("club_members")
    op.drop_table("clubs")
