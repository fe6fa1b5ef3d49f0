"""What a cluster node is told (``niugui serve --redis ...``); no Redis URL: no cluster."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

SECRET_ENV = "NIUGUI_CLUSTER_SECRET"
"""The environment variable that holds the cluster's shared secret (or ``--cluster-secret-file``)."""


@dataclass
class ClusterSettings:
    redis_url: str
    """``redis://HOST:6379/0``: the nodes' leases, messages and load."""
    secret: bytes = field(repr=False)
    """Shared by every node of the cluster: each bus message is sealed with it (``seal.py``)."""
    prefix: str = "niugui"
    """Every Redis key and channel starts with this (several clusters, or test runs, share a Redis)."""
    lease_seconds: float = 5.0
    """A table's lease lasts this long unless renewed (every third of it): a dead node's tables are
    taken over within about this time."""
    request_seconds: float = 10.0
    """How long a forwarded request waits for the owner's answer before it is refused."""
    heartbeat_seconds: float = 0.5
    """A node announces itself this often."""
    dead_seconds: float = 1.5
    """A node not heard of for this long is dead: its tables are taken over at once (their fencing
    tokens raised, so a node that was only paused can no longer write when it wakes up)."""
    lobby_seconds: float = 0.25
    """A node writes its tables' changes to the lobby's index, and reads the index, this often."""
    node_id: str = field(default_factory=lambda: secrets.token_hex(4))
    """This node's name in Redis (random unless given)."""


def read_secret(path: str | None, environ: Mapping[str, str] = os.environ) -> bytes:
    """The cluster's secret: the file's text at ``path`` (stripped), else ``$NIUGUI_CLUSTER_SECRET``
    of ``environ``; ValueError when neither holds one long enough.

    >>> read_secret(None, {SECRET_ENV: " a secret of the cluster "})
    b'a secret of the cluster'
    >>> read_secret(None, {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a cluster needs a shared secret: NIUGUI_CLUSTER_SECRET or --cluster-secret-file ...
    """
    from .seal import check_secret

    text = Path(path).read_text().strip() if path else environ.get(SECRET_ENV, "").strip()
    if not text:
        raise ValueError(
            f"a cluster needs a shared secret: {SECRET_ENV} or --cluster-secret-file (docs/scaling.md)"
        )
    return check_secret(text.encode())
