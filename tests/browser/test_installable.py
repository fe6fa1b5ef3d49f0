"""Issue 10, point 10: the page installs (a web app manifest with icons) and its service worker
keeps the shell, so the page opens from cache — even with no network, where it says that the table
needs the network. Responses are compressed (gzip) with cache headers: tests/server/
test_static_and_errors.py; the load-time figures: bench/web_load.py and docs/benchmarks.md."""

from __future__ import annotations

from typing import Any

from .conftest import DESKTOP, screenshot
from .pages import WAIT_MS, take_nickname

PHONE = {"width": 360, "height": 740}
CONTROLLED = "() => navigator.serviceWorker.controller !== null"


def test_the_service_worker_registers_and_the_page_opens_from_cache_offline(
    browser: Any, server: str
) -> None:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    take_nickname(page, server, "离线")
    scope = page.evaluate("() => navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == server + "/"
    page.reload()
    page.wait_for_function(CONTROLLED, timeout=WAIT_MS)
    page.wait_for_selector("[data-role=hello]", timeout=WAIT_MS)
    manifest = page.evaluate(
        "() => fetch(document.querySelector('link[rel=manifest]').href).then((r) => r.json())"
    )
    assert manifest["display"] == "standalone"
    assert {i["sizes"] for i in manifest["icons"]} >= {"192x192", "512x512"}

    context.set_offline(True)
    served: list[str] = []
    page.on("response", lambda r: served.append(r.url) if r.from_service_worker else None)
    page.reload()
    page.wait_for_selector("[data-role=hello]", timeout=WAIT_MS)  # the lobby, from the cache
    assert any(u.endswith("/js/app.js") for u in served), served
    page.wait_for_function(
        "() => document.querySelector('#conn-banner').textContent.includes('没有网络')", timeout=WAIT_MS
    )
    screenshot(page, "offline-phone-360x740")
    page.set_viewport_size(DESKTOP)
    screenshot(page, "offline-desktop-1280x800")
    context.set_offline(False)
    page.wait_for_selector("#conn-banner[data-status=online]", state="attached", timeout=WAIT_MS)
    context.close()
