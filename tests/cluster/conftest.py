"""Fixtures of the cluster tests: a fresh PostgreSQL schema and a fresh Redis key prefix per test (other
test runs share both servers), and real nodes started on loopback. Skipped, saying why, when the
machine has no PostgreSQL or Redis."""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# (appended, not inserted first: at the front it would shadow the other test directories' modules)
sys.path.append(str(Path(__file__).resolve().parents[1] / "server"))

from server_harness import fresh_pg_schema

from niugui.server.cluster.settings import SECRET_ENV

from .cluster_harness import Cluster

os.environ.setdefault(SECRET_ENV, secrets.token_hex(32))
"""The shared secret the nodes these tests start seal the bus with (they inherit the environment)."""


def redis_url() -> str:
    return os.environ.get("NIUGUI_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def pg_schema() -> Iterator[str]:
    with fresh_pg_schema("niugui_cluster", "cluster tests skipped") as url:
        yield url


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    import redis

    url = redis_url()
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except Exception as error:
        pytest.skip(f"cluster tests skipped: Redis not reachable at {url}: {type(error).__name__}")
    prefix = f"niugui-test-{secrets.token_hex(4)}"
    try:
        yield prefix
    finally:
        keys = list(client.scan_iter(match=f"{prefix}:*"))
        if keys:
            client.delete(*keys)
        client.close()


@pytest.fixture
def cluster(tmp_path: Path, pg_schema: str, redis_prefix: str) -> Iterator[Cluster]:
    nodes = Cluster(tmp_path, pg_schema, redis_url(), redis_prefix)
    try:
        yield nodes
    finally:
        nodes.stop()
