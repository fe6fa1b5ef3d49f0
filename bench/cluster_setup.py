"""What ``load_bench.py --nodes`` runs on: a fresh PostgreSQL schema (migrated once, before the nodes
start) and a fresh Redis key prefix, both removed afterwards."""

from __future__ import annotations

import os
import secrets
from types import TracebackType

import redis
import sqlalchemy as sa

from niugui.server.cluster.settings import SECRET_ENV
from niugui.server.store import Store


class Backing:
    def __init__(self, pg_url: str, redis_url: str) -> None:
        self.pg_url, self.redis_url = pg_url, redis_url
        self.schema = f"niugui_bench_{secrets.token_hex(4)}"
        self.prefix = f"niugui-bench-{secrets.token_hex(4)}"
        sep = "&" if "?" in pg_url else "?"
        self.url = f"{pg_url}{sep}options=-csearch_path%3D{self.schema}"
        self.redis = redis.Redis.from_url(redis_url)
        os.environ.setdefault(SECRET_ENV, secrets.token_hex(32))  # the nodes inherit it: their bus's seal

    def __enter__(self) -> Backing:
        self.admin = sa.create_engine(self.pg_url)
        with self.admin.begin() as c:
            c.execute(sa.text(f'CREATE SCHEMA "{self.schema}"'))
        store = Store(self.url)
        store.migrate()
        store.close()
        return self

    def __exit__(self, *_exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        with self.admin.begin() as c:
            c.execute(sa.text(f'DROP SCHEMA "{self.schema}" CASCADE'))
        self.admin.dispose()
        keys = list(self.redis.scan_iter(match=f"{self.prefix}:*"))
        if keys:
            self.redis.delete(*keys)
        self.redis.close()

    def db_args(self) -> list[str]:
        return ["--db", self.url]

    def node_args(self, index: int) -> list[str]:
        cluster = ["--redis", self.redis_url, "--redis-prefix", self.prefix, "--node-id", f"b{index}"]
        return [*self.db_args(), *cluster]

    def redis_cpu(self) -> float:
        """CPU seconds the Redis server has used so far (every client's, not only ours)."""
        info = self.redis.info("cpu")
        return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
