"""A table's state stored with each game's deal (``games.table_state``, its seq ``state_seq``): a
table is rebuilt from its latest deal on, not from its first event (issue 32: failover and restart
cost the same for a table that has played all evening as for a new one). Games stored before it
have none: their tables replay from the start until their next deal. An index on ``games`` (table,
id) finds a table's latest game at once.

Revision ID: 0011_table_state
Revises: 0010_hardening
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_table_state"
down_revision: str | None = "0010_hardening"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("table_state", sa.Text, nullable=True))
    op.add_column("games", sa.Column("state_seq", sa.Integer, nullable=True))
    op.create_index("ix_games_table_id_id", "games", ["table_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_games_table_id_id", "games")
    op.drop_column("games", "state_seq")  # in place, as 0006: a batch copy breaks foreign keys
    op.drop_column("games", "table_state")
