"""docs/protocol.md embeds the schemas generated from the protocol's models and the registry of client
messages (niugui/server/protocol_doc.py); it must not go stale."""

from pathlib import Path

import pytest
from pydantic import ValidationError

from niugui.server import protocol_doc
from niugui.server.handlers import CLIENT_TYPES

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_protocol_doc_schemas_are_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert protocol_doc.render_document(text) == text, (
        "docs/protocol.md is stale: run `python -m niugui.server.protocol_doc docs/protocol.md`"
    )


def test_every_client_type_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in CLIENT_TYPES:
        assert f"`{name}`" in text, name
        assert f'"const": "{name}"' in protocol_doc.schemas_markdown(), name


def test_wrong_field_type_is_refused() -> None:
    with pytest.raises(ValidationError):
        CLIENT_TYPES["play"].model_validate({"type": "play", "id": "1", "table": "t", "cards": "D4"})
    with pytest.raises(ValidationError):
        CLIENT_TYPES["sit"].model_validate({"type": "sit", "id": "1", "table": "t", "seat": 4})
