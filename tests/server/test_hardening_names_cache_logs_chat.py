"""Issue 33 (hardening, second round), a first subset: look-alike nicknames (finding 10), ``no-store``
on private responses, tokens never in logs (finding 12) and chat limited per account and per table
(finding 5). Each test is named after its finding and fails on the server before the fix."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from niugui.server.app import create_app
from niugui.server.config import Config


def test_finding_10_look_alike_nicknames_are_refused(tmp_path: Path) -> None:
    """A guest may not pass for a server bot, a bot account or the system, nor hide characters; the
    nickname kept is NFKC-normalised. Before: every one of these was accepted as typed."""
    with TestClient(create_app(Config(data_dir=tmp_path))) as http:
        bot_account = {"username": "helper9", "password": "correct horse", "bot": True}
        bot = http.post("/api/register", json=bot_account)
        assert bot.status_code == 200, bot.text

        def code(nickname: str) -> str:
            answer = http.post("/api/guest", json={"nickname": nickname})
            assert answer.status_code == 422, (nickname, answer.text)
            return str(answer.json()["detail"]["code"])

        for reserved in ("expert bot 1", "Expert-Bot 2", "ｅｘｐｅｒｔ ｂｏｔ", "高手机器人", "机器人小王",
                         "quick-play", "系统", "Admin", "大师", "random", "HELPER9", "helper 9"):  # fmt: skip
            assert code(reserved) == "reserved_nickname", reserved
        hidden_ones = (
            "ali\u202ece",
            "a\x00b",
            "zero\u200bwidth",
            "tab\tbed",
            "\u2066x\u2069",
            "line\u2028two",
        )
        for hidden in hidden_ones:
            assert code(hidden) == "bad_nickname", repr(hidden)
        assert code(" \u3000 ") == "blank_nickname"  # an ideographic space is a space once normalised
        assert code("㍿" * 7) == "bad_nickname"  # 7 characters typed, 28 once normalised
        admin = http.post("/api/register", json={"username": "admin", "password": "correct horse"})
        assert admin.status_code == 422 and admin.json()["detail"]["code"] == "reserved_nickname"
        kept = http.post("/api/guest", json={"nickname": " Ａｌｉｃｅ "}).json()["account"]["nickname"]
        assert kept == "Alice"
        for fine in ("小明", "Abbott", "阿丽 2", "Zoë"):
            assert http.post("/api/guest", json={"nickname": fine}).json()["account"]["nickname"] == fine
