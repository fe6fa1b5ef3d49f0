"""Structured logs: one JSON object per line. Never pass a hand or a deck to these functions."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

log = logging.getLogger("niugui.server")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


LOGGERS = ("niugui", "uvicorn")
"""The loggers whose lines come out as JSON: ours, and uvicorn's own (``uvicorn.error`` …)."""


def setup(level: str = "info") -> None:
    """Every line of :data:`LOGGERS` as one JSON object on standard error, from ``level`` up."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False


def info(message: str, **fields: Any) -> None:
    log.info(message, extra={"fields": fields})


def warning(message: str, **fields: Any) -> None:
    log.warning(message, extra={"fields": fields})


def exception(message: str, **fields: Any) -> None:
    log.exception(message, extra={"fields": fields})


def now() -> float:
    return time.time()
