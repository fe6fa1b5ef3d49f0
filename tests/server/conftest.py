"""Fixtures of the server tests; the harness itself is in server_harness.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from server_harness import Server, fresh_pg_schema


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # Scripted players act far faster than people: 50 messages/s (burst 100) instead of 20.
    srv = Server(tmp_path_factory.mktemp("shared") / "data", "--rate-limit", "50").start()
    yield srv
    srv.stop()


@pytest.fixture
def pg_schema_url() -> Iterator[str]:
    """A URL whose connections use a fresh schema of the test PostgreSQL database (dropped after)."""
    with fresh_pg_schema("niugui_test", "PostgreSQL tests skipped") as url:
        yield url
