"""Bot accounts: an account registered as a bot (``bot``) plays over the protocol like a person and is
labelled as a bot wherever it appears.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("accounts", sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("accounts", "bot")  # in place: a batch copy of accounts would break its foreign keys
