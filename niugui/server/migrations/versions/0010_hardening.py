"""Hardening, second round (issue 33): the ledger's and rating history's ``game_id`` indexed (the
leaderboards and fair play read by game; finding 3), muting stored with the account (finding 5), and a
bot account's consent to invitations (finding 6).

Revision ID: 0010_hardening
Revises: 0007_friends (main's head when written; the brief assigned 0009_swiss, which the
integrator re-chains to)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_hardening"
down_revision: str | None = "0009_swiss"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_ledger_game_id", "ledger", ["game_id"])
    op.create_index("ix_rating_history_game_id", "rating_history", ["game_id"])
    op.create_table(
        "mutes",
        sa.Column("account_id", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("muted", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.add_column("accounts", sa.Column("invite_from", sa.String(8), nullable=False, server_default="anyone"))
    op.add_column("accounts", sa.Column("invite_tables", sa.Integer, nullable=False, server_default="4"))


def downgrade() -> None:
    op.drop_column("accounts", "invite_tables")  # in place, as 0006: a batch copy breaks foreign keys
    op.drop_column("accounts", "invite_from")
    op.drop_table("mutes")
    op.drop_index("ix_rating_history_game_id", "rating_history")
    op.drop_index("ix_ledger_game_id", "ledger")
