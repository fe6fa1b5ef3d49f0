"""Structured logs: one JSON object per line. Never pass a hand or a deck to these functions."""

from __future__ import annotations

import json
import logging
import re
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


_SECRET = re.compile(r"(?i)\b(token|code|ticket|password)=[^&\s\"']*")
_SECRET_FIELD = re.compile(r"""(?i)(["']?)\b(token|code|ticket|password)\1(\s*:\s*)["']?[^"',}\s]*["']?""")
_FRAME = re.compile(r"^([<>] (?:TEXT|BINARY|CONT)) .*?( \[\d+ bytes\])?$", re.DOTALL)


def redact(text: str) -> str:
    """``text`` with the values of secret-looking query parameters and fields hidden, and the payload
    of a WebSocket frame (which the ``websockets`` library logs at debug level, cut in the middle:
    issue 33 found 27 of a token's 43 characters there) left out: a frame holds tokens and hands.

    >>> redact('127.0.0.1:5 - "WebSocket /ws?token=abc&x=1" [accepted]')
    '127.0.0.1:5 - "WebSocket /ws?token=…&x=1" [accepted]'
    >>> redact("< TEXT '{...O9ZMuuB2d6hyGttrpKSHA}' [86 bytes]")
    '< TEXT … [86 bytes]'
    >>> redact('bad message {"token": "abc", "id": 2}')
    'bad message {"token": "…", "id": 2}'
    """
    frame = _FRAME.match(text)
    if frame:
        return f"{frame.group(1)} …{frame.group(2) or ''}"
    text = _SECRET_FIELD.sub(lambda m: f'{m.group(1)}{m.group(2)}{m.group(1)}{m.group(3)}"…"', text)
    return _SECRET.sub(lambda m: f"{m.group(1)}=…", text)


class Redact(logging.Filter):
    """Rewrites every record so that no token (e.g. in a URL uvicorn logs) reaches a log line."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def redact_server_logs() -> None:
    """Install :class:`Redact` on uvicorn's loggers (the only ones that print request paths)."""
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, Redact) for f in logger.filters):
            logger.addFilter(Redact())


def info(message: str, **fields: Any) -> None:
    log.info(message, extra={"fields": fields})


def warning(message: str, **fields: Any) -> None:
    log.warning(message, extra={"fields": fields})


def exception(message: str, **fields: Any) -> None:
    log.exception(message, extra={"fields": fields})


def failure(message: str, error: BaseException, **fields: Any) -> None:
    """Log ``error`` (raised elsewhere, e.g. in the event writer's thread) with its traceback."""
    log.error(message, exc_info=error, extra={"fields": fields})


def now() -> float:
    return time.time()
