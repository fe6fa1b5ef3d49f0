"""The table runtime in-process (no sockets): replay from the store, rebuild from events, no leaks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from niugui.server.config import Config
from niugui.server.hub import Hub
from niugui.server.metrics import Metrics
from niugui.server.protocol import SERVER_ADAPTER, TableSettings
from niugui.server.store import Store


class FakeClient:
    def __init__(self, n: int) -> None:
        self.account_id = f"acct{n}"
        self.nickname = f"player{n}"
        self.messages: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any] | str) -> None:
        data = json.loads(message) if isinstance(message, str) else message
        SERVER_ADAPTER.validate_python(data)
        self.messages.append(data)


def play_one_game(tmp_path: Path, replay_limit: int) -> tuple[Hub, str, list[FakeClient]]:
    config = Config(data_dir=tmp_path, bot_delay=0, replay_limit=replay_limit)
    store = Store(config.database_url())
    store.migrate()
    hub = Hub(store, config, Metrics())
    clients = [FakeClient(n) for n in range(4)]
    table = hub.create_table(clients[0], TableSettings(turn_seconds=60))
    for n, client in enumerate(clients):
        hub.clients[client] = {table.id}
        table.sit(client, n)
    while table.status == "playing":
        game = table.game
        assert game is not None and game.to_move is not None
        view = game.view(game.to_move)
        mover = clients[game.to_move]
        if view["can_pass"] and (not view["legal_plays"] or len(view["legal_plays"]) > 3):
            table.act(mover, None)
        else:
            table.act(mover, view["legal_plays"][0])
    return hub, table.id, clients


def test_a_reconnect_beyond_the_memory_window_is_replayed_from_the_store(tmp_path: Path) -> None:
    async def scenario() -> None:
        hub, table_id, _ = play_one_game(tmp_path, replay_limit=8)
        table = hub.tables[table_id]
        assert len(table.recent) == 8 and table.seq > 40
        late = FakeClient(0)  # the same account, a new connection that saw up to seq 3
        table.subscribe(late, 3)
        replayed = [m for m in late.messages if m["type"] == "event"]
        assert [m["seq"] for m in replayed] == list(range(4, table.seq + 1))
        assert all(m["replay"] for m in replayed) and replayed[-1]["view"]["seat"] == 0

    asyncio.run(scenario())


def test_rebuilding_from_stored_events_gives_the_same_table(tmp_path: Path) -> None:
    async def scenario() -> None:
        hub, table_id, _ = play_one_game(tmp_path, replay_limit=64)
        live = hub.tables[table_id]
        rebuilt = hub._rebuild(table_id)
        assert rebuilt.seq == live.seq and rebuilt.status == live.status == "between"
        assert rebuilt.series.totals == live.series.totals and rebuilt.game is not None
        again, before = rebuilt.game.to_record(), live.game.to_record()  # type: ignore[union-attr]
        assert again.pop("meta")["salt"] == before.pop("meta")["salt"]
        assert again == before
        assert rebuilt.state(None) == live.state(None)

    asyncio.run(scenario())
