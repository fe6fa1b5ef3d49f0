"""docs/protocol.md embeds the schemas generated from niugui/server/protocol.py; it must not go stale."""

from pathlib import Path

import pytest
from pydantic import ValidationError

from niugui.server import protocol

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_protocol_doc_schemas_are_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert protocol.render_document(text) == text, (
        "docs/protocol.md is stale: run `python -m niugui.server.protocol docs/protocol.md`"
    )


def test_every_client_type_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in protocol.CLIENT_TYPES:
        assert f"`{name}`" in text, name


def test_wrong_field_type_is_refused() -> None:
    with pytest.raises(ValidationError):
        protocol.parse_client_message({"type": "play", "id": "1", "table": "t", "cards": "D4"})
    with pytest.raises(ValidationError):
        protocol.parse_client_message({"type": "sit", "id": "1", "table": "t", "seat": 4})
