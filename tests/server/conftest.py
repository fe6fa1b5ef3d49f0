"""Fixtures of the server tests; the harness itself is in server_harness.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from server_harness import Server, pg_url


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # Scripted players act far faster than people: 50 messages/s (burst 100) instead of 20.
    srv = Server(tmp_path_factory.mktemp("shared") / "data", "--rate-limit", "50").start()
    yield srv
    srv.stop()


@pytest.fixture
def pg_schema_url() -> Iterator[str]:
    """A URL whose connections use a fresh schema of the test PostgreSQL database (dropped after)."""
    import secrets

    import sqlalchemy as sa

    url = pg_url()
    schema = f"niugui_test_{secrets.token_hex(4)}"
    try:
        admin = sa.create_engine(url)
        with admin.begin() as c:
            c.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    except Exception as error:  # no server, no database, no permission
        pytest.skip(
            f"PostgreSQL not reachable at {url} (set NIUGUI_TEST_PG_URL): {type(error).__name__}: {error}"
        )
    sep = "&" if "?" in url else "?"
    try:
        yield f"{url}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as c:
            c.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
