"""Prometheus metrics, in a registry of the app's own (so several apps can live in one process)."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.connections = Gauge("niugui_connections", "open WebSocket connections", registry=r)
        self.tables = Gauge("niugui_tables", "tables in memory (not finished)", registry=r)
        self.quarantined = Gauge(
            "niugui_tables_quarantined", "tables whose stored events did not replay at the start", registry=r
        )
        self.messages = Counter("niugui_messages_received_total", "client messages", ["type"], registry=r)
        self.errors = Counter("niugui_errors_total", "error replies", ["code"], registry=r)
        self.events = Counter(
            "niugui_events_total", "table events stored and broadcast", ["kind"], registry=r
        )
        self.sent = Counter("niugui_messages_sent_total", "server messages sent", registry=r)
        self.games = Counter("niugui_games_finished_total", "games finished", ["outcome"], registry=r)
        self.limited = Counter(
            "niugui_limited_total",
            "requests refused by a fair-use limit (docs/security.md)",
            ["what"],
            registry=r,
        )
        self.slow_dropped = Counter(
            "niugui_slow_clients_dropped_total",
            "connections cut for not reading what they were sent",
            registry=r,
        )
        self.locked_retries = Counter(
            "niugui_store_locked_retries_total",
            "event writes tried again because another connection held the database locked",
            registry=r,
        )
        self.handle_seconds = Histogram(
            "niugui_handle_seconds",
            "time to handle a client message (store and broadcast included)",
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0),
            registry=r,
        )

        self._event_kinds: dict[str, Any] = {}

    def event(self, kind: str) -> None:
        """Count a table event (the counter of each kind looked up once: this runs for every event)."""
        counter = self._event_kinds.get(kind)
        if counter is None:
            counter = self._event_kinds[kind] = self.events.labels(kind)
        counter.inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
