"""Frames of the WebSocket: the JSON a client may send (decoded and checked here), the error frames
the transport answers with, and the limits on both.

>>> request_id_of('{"type": "ping", "id": "7"}'), request_id_of("not json")
('7', None)
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from ..protocol import error_frame

WS_HARD_LIMIT = 64 * 1024
"""Frames above this are not even read: uvicorn closes the connection (1009)."""
MAX_DEPTH = 32
"""Deepest nesting of arrays and objects in a frame (every message of the protocol needs 3)."""


class BadFrame(Exception):
    """A frame refused before it is read as a message: ``code`` is the error frame's code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def decode(text: str) -> Any:
    """A frame's JSON, refused (:class:`BadFrame`) when nested too deeply or holding text that is not
    Unicode (a lone surrogate escape such as ``"\\ud800"``, which no reply could carry back).

    >>> decode('{"type": "ping", "id": "1"}')
    {'type': 'ping', 'id': '1'}
    >>> decode('[' * 40 + ']' * 40)
    Traceback (most recent call last):
    niugui.server.ws.frames.BadFrame: nested deeper than 32 levels
    """
    try:
        data = json.loads(text)
    except RecursionError:
        raise BadFrame("bad_json", f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:
        raise BadFrame("bad_json", f"not valid JSON: {error}") from None
    check_strings = "\\ud" in text or "\\uD" in text
    if not check_strings and text.count("[") + text.count("{") < MAX_DEPTH:
        return data  # every array or object opens with one of these: it cannot be nested too deeply
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                raise BadFrame("bad_json", f"nested deeper than {MAX_DEPTH} levels")
            items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)
        elif check_strings and isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise BadFrame(
                    "invalid_message", "a string is not valid Unicode (a lone surrogate)"
                ) from None
    return data


def dump(message: dict[str, Any]) -> str:
    """A server frame's text: compact JSON, Unicode as is.

    >>> dump({"type": "pong", "text": "牛鬼"})
    '{"type":"pong","text":"牛鬼"}'
    """
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def error_text(request_id: str | None, code: str, message: str, rule: str | None = None) -> str:
    """An ``error`` frame (``code`` one of :data:`~niugui.server.protocol.ErrorCode`).

    >>> error_text("1", "bad_state", "no")
    '{"type":"error","id":"1","code":"bad_state","rule":null,"message":"no"}'
    """
    # The codes come from Fault and BadFrame, typed str; the model checks them against ErrorCode.
    return error_frame(request_id, code, message, rule)  # type: ignore[arg-type]


ID_SCAN = 256
"""Characters at the start of a refused frame searched for its ``id``."""
_ID = re.compile(r'"id"\s*:\s*"([^"\\]{1,64})"')


def request_id_of(text: str) -> str | None:
    """The ``id`` of a frame, if a plain one is in its first :data:`ID_SCAN` characters: to answer a
    dropped request without parsing it (issue 33, finding 2: a refused 16 KB frame was parsed whole).

    >>> request_id_of('{"type": "chat", "id": "r7", "text": "' + "x" * 20_000 + '"}')
    'r7'
    """
    found = _ID.search(text, 0, ID_SCAN)
    return found.group(1) if found else None


def validation_text(error: ValidationError) -> str:
    """What was wrong with a message, its first five faults, without echoing the input."""
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(p) for p in item["loc"]) or "message"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)
