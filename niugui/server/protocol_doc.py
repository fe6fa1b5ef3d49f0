"""The generated part of docs/protocol.md: the JSON schema of every message, both directions, and of
the HTTP bodies — written by ``python -m niugui.server.protocol_doc docs/protocol.md``; a test fails
when the committed document is stale."""

from __future__ import annotations

import json
import sys

from .handlers import ROUTES
from .protocol import (
    SERVER_ADAPTER,
    EventCreate,
    GuestRequest,
    HttpError,
    Leaderboard,
    LoginRequest,
    LogoutRequest,
    Profile,
    RegisterRequest,
    Replay,
    ReplayError,
    SessionResponse,
)

BEGIN = "<!-- BEGIN GENERATED SCHEMAS: python -m niugui.server.protocol_doc docs/protocol.md -->"
END = "<!-- END GENERATED SCHEMAS -->"


def schemas_markdown() -> str:
    """The generated part of docs/protocol.md: the JSON schema of every message."""
    parts = [BEGIN, ""]
    sections = [
        ("Client → server", ROUTES.schema()),
        ("Server → client", SERVER_ADAPTER.json_schema(by_alias=True)),
        (
            "HTTP bodies",
            {
                "GuestRequest": GuestRequest.model_json_schema(),
                "RegisterRequest": RegisterRequest.model_json_schema(),
                "LoginRequest": LoginRequest.model_json_schema(),
                "LogoutRequest": LogoutRequest.model_json_schema(),
                "SessionResponse": SessionResponse.model_json_schema(),
                "HttpError": HttpError.model_json_schema(),
                "Replay": Replay.model_json_schema(by_alias=True),
                "ReplayError": ReplayError.model_json_schema(),
                "Profile": Profile.model_json_schema(),
                "Leaderboard": Leaderboard.model_json_schema(),
                "EventCreate": EventCreate.model_json_schema(),
            },
        ),
    ]
    for title, schema in sections:
        parts += [f"### {title}", "", "```json", json.dumps(schema, indent=1, ensure_ascii=False), "```", ""]
    parts.append(END)
    return "\n".join(parts)


def render_document(text: str) -> str:
    """``text`` with its generated section (between the markers) replaced."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + schemas_markdown() + text[end:]


def main(argv: list[str]) -> int:
    path = argv[0] if argv else "docs/protocol.md"
    with open(path, encoding="utf-8") as file:
        text = file.read()
    with open(path, "w", encoding="utf-8") as file:
        file.write(render_document(text))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
