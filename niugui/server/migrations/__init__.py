"""Alembic migrations of the server's schema; :meth:`niugui.server.store.Store.migrate` runs them."""
