"""The web page's files, served from memory: compressed once (gzip), named by version, cached.

At startup every file under the static directory is read and gzipped once. The page's own files are
served under ``/v/<version>/…`` (``version``: a hash of all of them), with a year-long immutable
cache header, so a phone downloads each version once; ``index.html``, ``sw.js`` and the manifest keep
their names and are revalidated on every load (``no-cache`` with an ``ETag``). ``index.html`` is
rewritten to point at the versioned names and to preload every module at once (one round trip for
the whole module graph instead of one per level of imports); ``sw.js`` learns the version and the
files to keep for offline start.

>>> page = b'<head><link href="css/a.css"></head><script src="js/app.js">'
>>> site = StaticSite.from_files({"index.html": page,
...                               "js/app.js": b"import './b.js';", "js/b.js": b"", "css/a.css": b""})
>>> page = site.files["/"].body.decode()
>>> f'src="v/{site.version}/js/app.js"' in page, 'rel="modulepreload"' in page
(True, True)
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from starlette.types import Receive, Scope, Send

IMMUTABLE = b"public, max-age=31536000, immutable"
REVALIDATE = b"no-cache"
COMPRESSIBLE = (".html", ".js", ".css", ".json", ".webmanifest", ".svg", ".txt", ".md")
TYPES = {".js": "text/javascript; charset=utf-8", ".webmanifest": "application/manifest+json"}
ROOT_NAMES = ("index.html", "sw.js", "manifest.webmanifest")
"""Files that keep their name (no version): the page's entry, its service worker, its manifest."""


@dataclass(frozen=True, slots=True)
class File:
    body: bytes
    gzipped: bytes | None
    media_type: str
    etag: bytes
    cache: bytes


def _file(name: str, body: bytes, cache: bytes) -> File:
    suffix = Path(name).suffix
    media = TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
    if media.startswith("text/") and "charset" not in media:
        media += "; charset=utf-8"
    packed = gzip.compress(body, 9, mtime=0) if suffix in COMPRESSIBLE else None
    if packed is not None and len(packed) >= len(body):
        packed = None
    etag = b'"' + hashlib.sha256(body).hexdigest()[:20].encode() + b'"'
    return File(body, packed, media, etag, cache)


class StaticSite:
    """An ASGI app for the page's files (mount it at ``/``)."""

    def __init__(self, files: dict[str, File], version: str) -> None:
        self.files = files
        self.version = version

    @classmethod
    def from_dir(cls, root: Path) -> StaticSite:
        found = {
            p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
        }
        return cls.from_files(found)

    @classmethod
    def from_files(cls, found: dict[str, bytes]) -> StaticSite:
        digest = hashlib.sha256()
        for name in sorted(found):
            digest.update(name.encode() + b"\0" + found[name] + b"\0")
        version = digest.hexdigest()[:12]
        prefix = f"v/{version}/"
        assets = sorted(n for n in found if n not in ROOT_NAMES)
        files: dict[str, File] = {}
        for name in assets:
            files[f"/{prefix}{name}"] = _file(name, found[name], IMMUTABLE)
            files[f"/{name}"] = _file(name, found[name], REVALIDATE)  # old links and the tests' modules
        if "index.html" in found:
            page = _index(found["index.html"].decode(), prefix, first_modules(found, "js/app.js"))
            files["/"] = files["/index.html"] = _file("index.html", page.encode(), REVALIDATE)
        if "sw.js" in found:
            shell = [f"./{prefix}{n}" for n in assets if not n.endswith((".png", ".md"))]
            worker = found["sw.js"].decode().replace("__VERSION__", version)
            worker = worker.replace('"__ASSETS__"', ", ".join(f'"{a}"' for a in shell))
            files["/sw.js"] = _file("sw.js", worker.encode(), REVALIDATE)
        if "manifest.webmanifest" in found:
            manifest = found["manifest.webmanifest"].decode().replace("__PREFIX__", prefix)
            files["/manifest.webmanifest"] = _file("manifest.webmanifest", manifest.encode(), REVALIDATE)
        return cls(files, version)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        path = scope["path"]
        found = self.files.get(path)
        if found is None and path.endswith("/"):
            found = self.files.get(path + "index.html")
        if found is None or scope["method"] not in ("GET", "HEAD"):
            status = 404 if found is None else 405
            await send({"type": "http.response.start", "status": status, "headers": [
                (b"content-type", b"text/plain; charset=utf-8"), (b"cache-control", b"no-store")]})
            await send({"type": "http.response.body", "body": b"not found" if status == 404 else b""})
            return
        request = dict(scope.get("headers", ()))
        headers = [
            (b"content-type", found.media_type.encode()),
            (b"cache-control", found.cache),
            (b"etag", found.etag),
            (b"vary", b"accept-encoding"),
        ]
        if request.get(b"if-none-match") == found.etag:
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        body = found.body
        if found.gzipped is not None and b"gzip" in request.get(b"accept-encoding", b""):
            body = found.gzipped
            headers.append((b"content-encoding", b"gzip"))
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})


STATIC_IMPORT = re.compile(
    r"""(?:^|;|\n)\s*(?:import|export)\b[^;'"(]*?(?:\bfrom\s*)?["'](\.{1,2}/[^"']+)["']"""
)
"""A static ``import … from "./x.js"`` (or ``export … from``, or a bare ``import "./x.js"``); a
dynamic ``import("./x.js")`` does not match: what it loads is left for later."""


def first_modules(found: dict[str, bytes], entry: str) -> list[str]:
    r"""The modules the entry imports statically, directly or not (what the first screen needs).

    >>> first_modules({"js/a.js": b'import { b } from "./b.js";\nimport("./c.js").then(go);',
    ...                "js/b.js": b'export const b = 1;', "js/c.js": b""}, "js/a.js")
    ['js/a.js', 'js/b.js']
    """
    seen: list[str] = []
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in seen or name not in found:
            continue
        seen.append(name)
        base = posixpath.dirname(name)
        for target in STATIC_IMPORT.findall(found[name].decode()):
            todo.append(posixpath.normpath(posixpath.join(base, target)))
    return sorted(seen)


def _index(page: str, prefix: str, modules: list[str]) -> str:
    """index.html pointing at the versioned names, with every module preloaded."""
    page = page.replace('href="css/', f'href="{prefix}css/').replace('src="js/', f'src="{prefix}js/')
    page = page.replace('href="icons/', f'href="{prefix}icons/')
    preload = "".join(f'\n  <link rel="modulepreload" href="{prefix}{m}">' for m in modules)
    return page.replace("</head>", f"{preload}\n</head>", 1)
