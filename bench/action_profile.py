"""The server's work for one action, in-process and without sockets: decode the client's frame,
validate it, check and apply the action, store its event (SQLite in a temporary directory), build
and serialize every recipient's frame. Reports CPU per action, optionally a cProfile of it.

    .venv/bin/python bench/action_profile.py --actions 4000              # CPU per action
    .venv/bin/python bench/action_profile.py --actions 4000 --profile    # and where it goes
    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \\
        .venv/bin/python bench/action_profile.py --actions 400 --warmup 100 --callgrind
                                                                          # instructions per action

``--batch K``: K tables act at once (their events can share a transaction); 1 = one at a time.
``--gap MS``: wait MS milliseconds after each batch, asleep (or spinning, ``--spin``); the CPU of
the waits themselves is reported apart (docs/benchmarks.md, "An action after a wait").

It also runs on the code before issue 8 (``niugui.server.runtime``), so that before and after are
measured by the same script: ``git worktree add /tmp/before 64b003d`` and run this file there with
``PYTHONPATH=/tmp/before``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from niugui.server import protocol
from niugui.server.config import Config
from niugui.server.handlers import CLIENT_TYPES
from niugui.server.hub import Hub
from niugui.server.metrics import Metrics
from niugui.server.store import Store

try:  # before issue 8: one TableRuntime did everything, synchronously
    from niugui.server import runtime as before  # type: ignore[attr-defined]
except ImportError:
    before = None


class Connection:
    """Keeps the frames it is sent, as the app's connection queues them (serialized text)."""

    def __init__(self, n: int) -> None:
        self.account_id = f"acct{n}"
        self.nickname = f"player{n}"
        self.address = ""
        self.frames = 0
        self.bytes = 0

    def send(self, message: Any) -> None:
        if not isinstance(message, str):  # the old runtime queued some messages as dicts
            message = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        self.frames += 1
        self.bytes += len(message)


def weakest(view: dict[str, Any]) -> list[str] | None:
    if view["can_pass"] and (not view["legal_plays"] or len(view["legal_plays"]) > 3):
        return None
    first: list[str] = view["legal_plays"][0]
    return first


class Bench:
    def __init__(self, tables: int, inline: bool = False) -> None:
        data = Path(tempfile.mkdtemp(prefix="niugui-action-"))
        self.config = Config(data_dir=data, bot_delay=60, grace_seconds=600)
        self.store = Store(self.config.database_url())
        self.store.migrate()
        if inline and before is None:  # the store written in this thread, so one profile shows all
            from niugui.server.hub import stored_events
            from niugui.server.tables import ExecutorBots, Services
            from niugui.server.writer import InlineWriter

            loop = asyncio.get_running_loop()
            services = Services(InlineWriter(self.store), loop, ExecutorBots(loop), stored_events(self.store))
            self.hub = Hub(self.store, self.config, Metrics(), services)
        else:
            self.hub = Hub(self.store, self.config, Metrics())
        self.tables: list[tuple[Any, list[Connection]]] = []
        self.n = tables
        self.ids = 0
        self.driver = 0.0
        self.idling = 0.0

    async def setup(self) -> None:
        for t in range(self.n):
            clients = [Connection(4 * t + i) for i in range(4)]
            settings = protocol.TableSettings(turn_seconds=600)
            if before is not None:
                table = self.hub.create_table(clients[0], settings)
                for n, c in enumerate(clients):
                    self.hub.directory.follow(c, table.id)
                    table.subscribe(c, None)
                    table.sit(c, n)
            else:
                table = await self.call(self.hub.create_table, clients[0], settings)
                for n, c in enumerate(clients):
                    await self.request(c, {"type": "sit", "table": table.id, "seat": n})
            self.tables.append((table, clients))

    async def call(self, fn: Any, *args: Any) -> Any:
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        result = fn(*args, done.set_result)
        await done
        return result

    def frame(self, client: Connection, fields: dict[str, Any]) -> protocol.Request:
        """What the app does with a client's frame: decode it, validate it."""
        self.ids += 1
        text = json.dumps({"id": f"r{self.ids}", **fields})
        data = json.loads(text)
        return CLIENT_TYPES[data["type"]].model_validate(data)

    async def request(self, client: Connection, fields: dict[str, Any]) -> None:
        message = self.frame(client, fields)
        if before is not None:
            self.hub.handle(client, message)
            return
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.hub.handle(client, message, done.set_result)
        answer = await done
        if isinstance(answer, BaseException):
            raise answer

    def game_of(self, table: Any) -> Any:
        return table.game if before is not None else table.state.game

    def status_of(self, table: Any) -> str:
        status: str = table.status if before is not None else table.state.status
        return status

    async def act(self, table: Any, clients: list[Connection]) -> int:
        if self.status_of(table) != "playing":
            for c in clients:
                await self.request(c, {"type": "ready", "table": table.id})
            return 0
        started = time.thread_time()  # the players' choice is theirs, not the server's: not counted
        game = self.game_of(table)
        seat = game.to_move
        cards = weakest(game.view(seat, history=False))
        self.driver += time.thread_time() - started
        fields = {"type": "pass", "table": table.id}
        if cards is not None:
            fields = {"type": "play", "table": table.id, "cards": cards}
        await self.request(clients[seat], fields)
        return 1

    async def run(self, actions: int, batch: int, gap: float = 0.0, spin: bool = False) -> int:
        done = 0
        while done < actions:
            for start in range(0, len(self.tables), batch):
                group = self.tables[start : start + batch]
                counts = await asyncio.gather(*(self.act(t, c) for t, c in group))
                done += sum(counts)
                if gap:
                    await self.idle(gap, spin)
        return done

    async def idle(self, seconds: float, spin: bool) -> None:
        """Wait between actions, as a server at a low rate does: asleep, or spinning on the CPU.

        This thread's CPU in the wait (waking up, or all of it when spinning) is kept in
        ``self.idling``, apart from the actions'; other threads' (the checkpointer's) stays in."""
        started = time.thread_time()
        if spin:
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                pass
        else:
            await asyncio.sleep(seconds)
        self.idling += time.thread_time() - started


async def main_async(args: argparse.Namespace) -> None:
    bench = Bench(args.tables, args.inline)
    await bench.setup()
    await bench.run(args.warmup, args.batch)
    profile = cProfile.Profile(time.thread_time) if args.profile else None
    if args.callgrind:
        _callgrind("on")
    if profile:
        profile.enable()
    cpu, bench.driver, bench.idling = time.process_time(), 0.0, 0.0
    done = await bench.run(args.actions, args.batch, args.gap / 1000, args.spin)
    cpu = time.process_time() - cpu - bench.driver - bench.idling
    if profile:
        profile.disable()
    if args.callgrind:
        _callgrind("off")
    frames = sum(c.frames for _, cs in bench.tables for c in cs)
    code = "before issue 8 (runtime.py)" if before is not None else "tables/ (issue 8)"
    waits = ""
    if args.gap:
        how = "spun" if args.spin else "asleep"
        per_action = 1000 * bench.idling / done
        waits = f"; {args.gap:g} ms {how} after each batch, {per_action:.3f} ms CPU per action in those waits"
    print(
        f"{code}: {done} actions at {args.tables} tables, batch {args.batch}: "
        f"{1000 * cpu / done:.3f} ms CPU per action ({frames} frames sent in all){waits}"
    )
    if profile:
        if args.save:
            profile.dump_stats(args.save)
        stats = pstats.Stats(profile)
        stats.sort_stats("tottime").print_stats(args.top)
        stats.sort_stats("cumulative").print_stats(args.top)
    if before is None:
        bench.hub.close()


def _callgrind(state: str) -> None:
    """Switch callgrind's instrumentation (run with --instr-atstart=no) via its client request tool."""
    import subprocess

    subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], check=False, capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--actions", type=int, default=4000, help="actions measured")
    parser.add_argument("--warmup", type=int, default=400)
    parser.add_argument("--batch", type=int, default=1, help="tables acting at once")
    parser.add_argument(
        "--gap", type=float, default=0.0, metavar="MS", help="wait after each batch (a profile includes it)"
    )
    parser.add_argument("--spin", action="store_true", help="with --gap: wait on the CPU instead of asleep")
    parser.add_argument("--profile", action="store_true", help="cProfile (CPU time) of the measured actions")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--save", metavar="FILE", help="with --profile: also write the statistics to FILE")
    parser.add_argument(
        "--inline",
        action="store_true",
        help="store events in the event loop's thread (one profile shows it all)",
    )
    parser.add_argument("--callgrind", action="store_true", help="instrument only the measured actions")
    args = parser.parse_args()
    if args.gap < 0 or (args.spin and not args.gap):
        parser.error("--gap takes a positive number of milliseconds, and --spin needs --gap")
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
