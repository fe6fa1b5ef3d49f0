"""What a player sees when the node holding their table dies (issue 32): the page, behind one address
as docs/scaling.md sets it up, loses its connection, connects again (the front sends it to a live
node), rejoins the table while a survivor takes it over — refused ``moving`` meanwhile, which the page
sends again by itself — and plays the game to its result, with no reload and no error shown.

Two real nodes (PostgreSQL, Redis: the cluster tests' fixtures) and a stand-in for nginx (``Front``):
each connection goes to the node its ``/ws?node=<id>`` names, as deploy/nginx/niugui.conf routes it,
else — or when that node is down — to the first node that accepts it."""

from __future__ import annotations

import contextlib
import re
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from cluster.conftest import Cluster, cluster, pg_schema, redis_prefix  # puts server_harness on the path

from .conftest import PHONE
from .pages import WAIT_MS, create_table, play_until_result, take_nickname

__all__ = ["cluster", "pg_schema", "redis_prefix"]  # the cluster tests' fixtures, used here


class Front:
    """One address in front of the nodes (a TCP relay, one thread a direction)."""

    def __init__(self, nodes: dict[str, int]) -> None:
        self.nodes = nodes
        self.asked: list[str | None] = []
        """The node each connection's request named, in order (None: none named)."""
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self.server.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        line = client.recv(4096, socket.MSG_PEEK).split(b"\r\n", 1)[0]
        named = re.search(rb"[?&]node=([\w-]+)", line)
        wanted = named.group(1).decode() if named else None
        self.asked.append(wanted)
        ports = ([self.nodes[wanted]] if wanted in self.nodes else []) + list(self.nodes.values())
        for port in ports:
            try:
                upstream = socket.create_connection(("127.0.0.1", port), timeout=2)
                break
            except OSError:
                continue
        else:
            client.close()
            return
        upstream.settimeout(None)
        threading.Thread(target=_pipe, args=(client, upstream), daemon=True).start()
        _pipe(upstream, client)


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def front(cluster: Cluster) -> Iterator[Front]:
    nodes = cluster.start(2)
    door = Front({f"n{i}": node.port for i, node in enumerate(nodes)})
    yield door
    door.close()


TOASTS = """() => {
  window.toasts = [];
  new MutationObserver((changes) => changes.forEach((change) => change.addedNodes.forEach((node) => {
    if (node.classList && node.classList.contains('toast')) window.toasts.push(node.textContent);
  }))).observe(document.body, { childList: true });
}"""


def test_the_page_of_a_killed_node_rejoins_its_table_and_plays_to_the_result(
    browser: Any, cluster: Cluster, front: Front
) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    take_nickname(page, front.url, "阿牛")
    create_table(page, turn_seconds=60)
    page.click("[data-action=fill-bots]")
    page.wait_for_selector(".hand [data-card]", timeout=WAIT_MS)
    table = page.eval_on_selector(".table-screen", "(el) => el.dataset.table")
    owner = cluster.owner(table)
    assert owner in ("n0", "n1")  # a connection naming no node goes to n0: the page is there, or moves
    cluster.wait(lambda: owner == "n0" or owner in front.asked, "the page to move to its table's node")
    page.evaluate(TOASTS)
    seq_before = int(page.eval_on_selector(".table-screen", "(el) => el.dataset.seq || '0'"))
    cluster.node(owner).kill()
    turns = play_until_result(page)  # the page's turns come only once it is back at its table
    assert turns > 0 and int(page.eval_on_selector(".table-screen", "(el) => el.dataset.seq")) > seq_before
    assert cluster.owner(table) == ("n1" if owner == "n0" else "n0")  # taken over by the survivor
    assert errors == [] and page.evaluate("window.toasts") == []  # a pause, nothing to read
