"""The one-address setup of docs/scaling.md: nginx (Debian's package) in front of two nodes, with
deploy/nginx/niugui.conf as shipped (only its ports and paths changed). Skipped when nginx is not
installed."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_harness import ROOT, Server, drive, free_port, game_over

from .cluster_harness import Cluster, act_through_failover, gapless, retrying
from .test_cluster_games import seat_four

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


@pytest.fixture
def proxy(tmp_path: Path, cluster: Cluster) -> Iterator[Server]:
    if NGINX is None:
        pytest.skip("nginx is not installed (apt install nginx-light): the one-address test is skipped")
    nodes = cluster.start(2)
    port = free_port()
    site = (ROOT / "deploy" / "nginx" / "niugui.conf").read_text()
    upstreams = "".join(f"    server 127.0.0.1:{n.port} max_fails=1 fail_timeout=5s;\n" for n in nodes)
    site = re.sub(r"(?m)^    server 127\.0\.0\.1:800\d.*\n", "", site)
    site = site.replace("    least_conn;", "    least_conn;\n" + upstreams.rstrip("\n"), 1)
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    where = tmp_path / "nginx"
    where.mkdir()
    temp = "\n".join(
        f"    {k}_temp_path {where}/{k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (where / "nginx.conf").write_text(
        f"worker_processes 1;\npid {where}/nginx.pid;\nerror_log {where}/error.log warn;\n"
        f"events {{ worker_connections 1024; }}\nhttp {{\n    access_log off;\n{temp}\n{site}\n}}\n"
    )
    process = subprocess.Popen(
        [NGINX, "-p", str(where), "-c", str(where / "nginx.conf"), "-g", "daemon off;"]
    )
    front = Server(tmp_path / "front")
    front.port = port
    try:
        Cluster.wait(lambda: _answers(front.url), "nginx to answer /healthz")
        yield front
    finally:
        process.send_signal(signal.SIGQUIT)
        process.wait(10)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url + "/healthz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def test_four_players_through_one_address_and_a_node_killed(proxy: Server, cluster: Cluster) -> None:
    """Every client connects to nginx's one address; a game is played; the table's owner is killed:
    the clients it carried reconnect to the same address (nginx sends them to the survivor), resume
    from their last seq, and the game ends."""
    players, table = seat_four([proxy])
    drive(
        players,
        table,
        lambda: sum(1 for m in players[0].received if m["type"] == "event") >= 20,
        what="twenty events",
    )
    owner_id = cluster.owner(table)
    assert owner_id is not None
    cluster.node(owner_id).kill()
    for player in players:  # who was on the dead node is cut off; reconnecting costs the others nothing
        player.drop()
        player.connect()
        assert retrying(player, "watch", table=table, last_seq=player.last_seq[table])["type"] == "ack"
    assert _answers(proxy.url)  # the next node answers for the dead one
    drive(players, table, game_over(players[0], table), act=act_through_failover)
    for player in players:
        player.wait_event("game_over", game_no=1)
        gapless(player, table)
        player.close()
