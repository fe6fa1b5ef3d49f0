"""``niugui serve``: the online game server (HTTP + WebSocket on uvicorn), SQLite in a data directory
by default, PostgreSQL with ``--db postgresql+psycopg://...``. The schema is migrated at startup."""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..server.cluster.settings import ClusterSettings
    from ..server.config import Limits

PROG = "niugui serve"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the online game server",
        description="Run the online game server: the web page at /, the API under /api, the "
        "WebSocket at /ws (docs/protocol.md). Data lives in an SQLite database in --data "
        "unless --db gives a database URL.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--data",
        type=Path,
        default=Path("niugui-data"),
        metavar="DIR",
        help="data directory for the SQLite database (default ./niugui-data)",
    )
    parser.add_argument(
        "--db", metavar="URL", help="SQLAlchemy database URL, e.g. postgresql+psycopg://user@host/db"
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="how long a disconnected player may stay away mid-game before it is an escape (default 120)",
    )
    parser.add_argument(
        "--ready-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="between games, how long a seated player has to get ready before the seat is freed"
        " (default 60; 0: wait for ever)",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.8,
        metavar="SECONDS",
        help="pause before a bot or 托管 plays (default 0.8)",
    )
    parser.add_argument(
        "--rate-limit",
        type=float,
        default=20.0,
        metavar="PER_SECOND",
        help="messages per second per connection (default 20, burst twice that); an account may send "
        "twice that over all its connections, an address ten times",
    )
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a fair-use limit, e.g. connections_per_account=8 (docs/security.md lists them; 0: no cap)",
    )
    parser.add_argument(
        "--exempt",
        action="append",
        default=[],
        metavar="CIDR",
        help="addresses that per-address limits do not apply to (e.g. 127.0.0.1 for a local load test)",
    )
    parser.add_argument(
        "--trust-proxy",
        metavar="IPS",
        help="take client addresses from X-Forwarded-For when the peer is one of these (a reverse proxy)",
    )
    parser.add_argument(
        "--community",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a quick-play, rating or fair-play setting, e.g. bots_after=30 (docs/community.md); repeatable",
    )
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    parser.add_argument(
        "--transport",
        default="direct",
        choices=["direct", "asgi"],  # config.Transport's (not imported here: every command would pay)
        help="WebSockets through the direct path (default, faster; it relies on internals of uvicorn and"
        " websockets) or through plain ASGI (a fallback should an upgrade break the direct path)",
    )
    cluster = parser.add_argument_group(
        "cluster", "run as one node of a cluster sharing Redis and the database (docs/scaling.md)"
    )
    cluster.add_argument("--redis", metavar="URL", help="redis://HOST:6379/0: be a cluster node (needs --db)")
    cluster.add_argument("--redis-prefix", default="niugui", metavar="NAME", help="prefix of Redis keys")
    cluster.add_argument(
        "--lease", type=float, default=5.0, metavar="SECONDS", help="a table's lease (default 5)"
    )
    cluster.add_argument(
        "--cluster-secret-file",
        metavar="PATH",
        help="the nodes' shared secret that seals the bus's messages (default: $NIUGUI_CLUSTER_SECRET)",
    )
    cluster.add_argument("--node-id", metavar="NAME", help="this node's name (default: random)")
    cluster.add_argument(
        "--nodes",
        type=int,
        default=1,
        metavar="N",
        help="run N nodes on this machine, all on --port (SO_REUSEPORT), restarted if one dies",
    )
    cluster.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)
    parser.set_defaults(run=run)


def _cluster_secret(args: argparse.Namespace) -> bytes | None:
    """The bus's shared secret of a cluster node (empty for a single process); None, saying why, if a
    node has none."""
    if args.redis is None:
        return b""
    from ..server.cluster.settings import read_secret

    try:
        return read_secret(args.cluster_secret_file)
    except (OSError, ValueError) as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return None


def _cluster_settings(args: argparse.Namespace, secret: bytes) -> ClusterSettings | None:
    """A cluster node's settings (``--redis``), or None: a single process."""
    if args.redis is None:
        return None
    from ..server.cluster.settings import ClusterSettings

    node = {"node_id": args.node_id} if args.node_id else {}
    return ClusterSettings(args.redis, secret, prefix=args.redis_prefix, lease_seconds=args.lease, **node)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from ..server import logs
    from ..server.app import create_app
    from ..server.config import Community, Config, Limits
    from ..server.limits import Exempt
    from ..server.store import Store
    from ..server.transport import TRANSPORTS
    from ..server.ws.frames import WS_HARD_LIMIT

    for name, value in (
        ("--grace", args.grace),
        ("--ready-timeout", args.ready_timeout),
        ("--bot-delay", args.bot_delay),
        ("--rate-limit", args.rate_limit),
    ):
        if value < 0 or (name == "--rate-limit" and value == 0):
            print(f"{PROG}: {name} must be positive", file=sys.stderr)
            return 2
    if not 0 < args.port < 65536:
        print(f"{PROG}: --port must be 1..65535", file=sys.stderr)
        return 2
    if args.redis is not None and not (args.db or "").startswith("postgresql"):
        print(f"{PROG}: --redis needs --db postgresql+psycopg://... (shared by the nodes)", file=sys.stderr)
        return 2
    secret = _cluster_secret(args)
    if secret is None:
        return 2
    if args.nodes != 1:
        if args.redis is None or args.nodes < 1:
            print(f"{PROG}: --nodes N needs --redis (and N >= 1)", file=sys.stderr)
            return 2
        from ..server.cluster.supervisor import supervise

        return supervise(args.nodes, args.db, sys.argv[1:])

    rate = args.rate_limit  # the account's and the address's message rates scale with the connection's
    limits = Limits(
        account_rate=2 * rate, account_burst=4 * rate, address_rate=10 * rate, address_burst=20 * rate
    )
    try:
        for assignment in args.limit:
            limits.set(assignment)
        community = Community()
        for assignment in args.community:
            community.set(assignment)
        Exempt.parse(args.exempt)
    except ValueError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    config = Config(
        host=args.host,
        port=args.port,
        data_dir=args.data,
        db_url=args.db,
        grace_seconds=args.grace,
        ready_seconds=args.ready_timeout,
        bot_delay=args.bot_delay,
        rate_limit=args.rate_limit,
        rate_burst=2 * args.rate_limit,
        log_level=args.log_level,
        limits=limits,
        community=community,
        exempt=tuple(args.exempt),
        transport=args.transport,
        cluster=_cluster_settings(args, secret),
    )
    try:
        listening = listen(args.host, args.port, args.reuse_port)  # before anything is announced or opened
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        print(f"{PROG}: cannot listen on {args.host}:{args.port}: {reason}", file=sys.stderr)
        return 1
    logs.setup(args.log_level)
    logs.redact_server_logs()
    _raise_open_file_limit()
    try:
        store = Store(config.database_url())
        store.migrate()  # here, so that a bad --db or --data is one line, not a traceback
    except Exception as error:
        listening.close()
        print(
            f"{PROG}: cannot open the database: {type(error).__name__}: {str(error).splitlines()[0]}",
            file=sys.stderr,
        )
        return 1
    app = create_app(config, store)
    print(
        f"niugui server on http://{args.host}:{args.port}/ (data: {args.db or args.data};"
        f" transport: {config.transport})",
        flush=True,
    )
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=args.host,
            port=args.port,
            http=_guarded_http(args, limits),
            # websockets (sans-I/O), a direct path for the app's messages (niugui/server/transport.py)
            ws=TRANSPORTS[config.transport],
            ws_max_size=WS_HARD_LIMIT,
            # no permessage-deflate: ~40% of the server's CPU per action (docs/benchmarks.md)
            ws_per_message_deflate=False,
            log_level=args.log_level,
            log_config=None,  # uvicorn's own lines go through logs.setup's JSON handler
            access_log=False,
            lifespan="on",
            proxy_headers=args.trust_proxy is not None,
            forwarded_allow_ips=args.trust_proxy,
        )
    )
    server.run(sockets=[listening])
    return 0 if server.started else 1


def _guarded_http(args: argparse.Namespace, limits: Limits) -> Any:
    """uvicorn's HTTP protocol behind the doorman: per-address opening rate, cap on half-open
    requests, request deadline (niugui/server/doorman.py). A trusted proxy carries every client: not
    counted at the door (the app counts X-Forwarded-For)."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    from ..server.doorman import Doorman, guarded
    from ..server.limits import Exempt

    proxies = [p.strip() for p in (args.trust_proxy or "").split(",") if p.strip() not in ("", "*")]
    return guarded(AutoHTTPProtocol, Doorman(limits, Exempt.parse([*args.exempt, *proxies])))


def _raise_open_file_limit() -> None:
    """Let the server hold as many sockets as the system allows it (the soft limit is often 1,024,
    where a flood of connections would leave no file for new players or /healthz)."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or soft < hard:
            resource.setrlimit(
                resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard)
            )
    except (ImportError, ValueError, OSError):
        pass


def listen(host: str, port: int, reuse_port: bool = False) -> socket.socket:
    """A socket bound to ``host``:``port`` and listening, for uvicorn to serve on; ``OSError`` (a
    port in use, a host that does not resolve or is not this machine's) says why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        address = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)[0][4]
    except socket.gaierror as error:
        raise OSError(f"no such host ({error.strerror})") from None
    sock = socket.create_server(address, family=family, backlog=2048, reuse_port=reuse_port)
    sock.set_inheritable(True)
    return sock
