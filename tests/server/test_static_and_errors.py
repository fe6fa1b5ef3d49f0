"""Issue 10, point 10 (and 7): the page's files are served gzipped, under versioned names with a
year-long immutable cache, the entry points revalidated by ETag; and every HTTP error names a
``code`` (protocol.py HttpError) that the page words, never only English text."""

from __future__ import annotations

import re

import httpx
from server_harness import Server

from niugui.server.protocol import HttpError


def test_the_page_is_compressed_versioned_and_cached(shared_server: Server) -> None:
    url = shared_server.url
    index = httpx.get(url + "/", headers={"Accept-Encoding": "gzip"}, timeout=10)
    assert index.status_code == 200 and index.headers["content-encoding"] == "gzip"
    assert index.headers["cache-control"] == "no-cache" and index.headers["etag"]
    assert int(index.headers["content-length"]) < len(index.content)  # what went over the wire: gzip
    again = httpx.get(url + "/", headers={"If-None-Match": index.headers["etag"]}, timeout=10)
    assert again.status_code == 304 and not again.content
    page = index.text
    versioned = re.findall(r'(?:src|href)="(v/[0-9a-f]{12}/[^"]+)"', page)
    assert any(v.endswith("js/app.js") for v in versioned) and any(v.endswith(".css") for v in versioned)
    preloaded = re.findall(r'rel="modulepreload" href="v/[0-9a-f]{12}/([^"]+)"', page)
    assert {"js/app.js", "js/i18n.js", "js/net.js", "js/signin.js"} <= set(preloaded)  # one round trip
    assert "js/tablescreen.js" not in preloaded and "js/lobby.js" not in preloaded  # loaded after
    styles = re.findall(r'rel="stylesheet" href="v/[0-9a-f]{12}/([^"]+)"', page)
    # A browser opens at most six connections to a server: the first screen's modules and style
    # sheets in six files come in one round trip after index.html, a seventh would wait for another.
    assert len(preloaded) + len(styles) <= 6, (preloaded, styles)
    total = 0
    for path in versioned:
        reply = httpx.get(f"{url}/{path}", headers={"Accept-Encoding": "gzip, br"}, timeout=10)
        assert reply.status_code == 200, path
        assert reply.headers["cache-control"] == "public, max-age=31536000, immutable", path
        if not path.endswith(".png"):
            assert reply.headers["content-encoding"] == "gzip", path
        total += int(reply.headers["content-length"])
    assert total < 80 * 1024, f"first load {total} bytes"
    plain = httpx.get(f"{url}/{versioned[0]}", headers={"Accept-Encoding": "identity"}, timeout=10)
    assert "content-encoding" not in plain.headers and plain.content
    assert httpx.get(url + "/v/000000000000/js/app.js", timeout=10).status_code == 404  # another version
    worker = httpx.get(url + "/sw.js", timeout=10)
    assert worker.headers["cache-control"] == "no-cache" and "__VERSION__" not in worker.text
    assert all(f'"./{v}"' in worker.text for v in versioned if not v.endswith(".png"))
    manifest = httpx.get(url + "/manifest.webmanifest", timeout=10)
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    for icon in manifest.json()["icons"]:
        assert httpx.get(f"{url}/{icon['src']}", timeout=10).status_code == 200, icon


def test_http_errors_name_a_code_the_page_words(shared_server: Server) -> None:
    url = shared_server.url
    replies = {
        "blank_nickname": httpx.post(url + "/api/guest", json={"nickname": "   "}, timeout=10),
        "wrong_password": httpx.post(
            url + "/api/login", json={"username": "nobody", "password": "x"}, timeout=10
        ),
        "unauthorized": httpx.get(url + "/api/me", timeout=10),
        "no_player": httpx.get(url + "/api/players/nobody/games", timeout=10),
        "no_game": httpx.get(url + "/api/games/999999/record", timeout=10),
        "no_table": httpx.get(url + "/api/tables/nothere/ledger", timeout=10),
        "too_large": httpx.post(url + "/api/guest", content=b"x" * (300 * 1024), timeout=10),
    }
    for code, reply in replies.items():
        assert reply.status_code >= 400, code
        detail = HttpError.model_validate(reply.json()["detail"])
        assert detail.code == code, (code, reply.text)
    short = httpx.post(url + "/api/guest", json={"nickname": ""}, timeout=10)
    (field,) = short.json()["detail"]
    assert field["type"] == "string_too_short" and field["loc"][-1] == "nickname"
    assert field["ctx"] == {"min_length": 1}  # for the page's words: 昵称：至少 1 个字


def test_every_http_error_of_the_server_names_a_code() -> None:
    """No route raises a bare ``HTTPException`` with English text only: each goes through ``fail``
    (an HttpError with a code the page words; the browser test words every code)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "niugui" / "server"
    bare = [
        f"{path.name}:{n}"
        for path in root.rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "HTTPException(" in line and "http_error(" not in line and "import" not in line
    ]
    assert bare == []
