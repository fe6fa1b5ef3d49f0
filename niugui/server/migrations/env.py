"""Alembic environment: runs the migrations on the connection that ``Store.migrate`` hands over."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from niugui.server.store import metadata


def run_migrations(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()


_config = getattr(context, "config", None)  # None when merely imported (e.g. by doctest collection)
if _config is not None:
    _connection = _config.attributes.get("connection")
    if not isinstance(_connection, Connection):
        raise RuntimeError("run migrations through niugui.server.store.Store.migrate()")
    run_migrations(_connection)
