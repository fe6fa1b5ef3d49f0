"""The table runtime in-process (no sockets): replay from the store, rebuild from events, no leaks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

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
        assert rebuilt.game_row is not None and live.game_row is not None
        assert rebuilt.game_row.salt == live.game_row.salt
        assert again == before
        assert rebuilt.state(None) == live.state(None)

    asyncio.run(scenario())


def test_toggling_autoplay_off_turn_does_not_hold_up_a_bot(tmp_path: Path) -> None:
    """A seated player flipping 托管 on and off while a bot is to move must not keep re-arming the bot's
    timer (or discarding its answer): the bot still plays within its delay."""

    async def scenario() -> None:
        config = Config(data_dir=tmp_path, bot_delay=0.3)
        store = Store(config.database_url())
        store.migrate()
        hub = Hub(store, config, Metrics())
        human = FakeClient(0)
        table = hub.create_table(human, TableSettings(turn_seconds=60))
        table.sit(human, 0)
        table.fill_bots(human)
        game = table.game
        assert table.status == "playing" and game is not None
        for _ in range(200):
            if game.to_move == 0:
                view = game.view(0)
                table.act(human, None if view["can_pass"] else view["legal_plays"][0])
            if game.to_move not in (0, None):
                break
            await asyncio.sleep(0.05)
        before = len(game.actions())
        on = True
        for _ in range(20):  # 2 s of toggling, every 0.1 s: far longer than the bot's 0.3 s delay
            if game.to_move in (0, None):
                break
            table.set_autoplay(human, on)
            on = not on
            await asyncio.sleep(0.1)
        assert len(game.actions()) > before, "the bot never moved while 托管 was toggled"
        table.cancel_timer()

    asyncio.run(scenario())


def test_toggling_autoplay_on_your_turn_does_not_restart_your_timer(tmp_path: Path) -> None:
    """托管 on then off on your own turn gives the turn back with the deadline it had, not a fresh one."""

    async def scenario() -> None:
        config = Config(data_dir=tmp_path, bot_delay=5)
        store = Store(config.database_url())
        store.migrate()
        hub = Hub(store, config, Metrics())
        clients = [FakeClient(n) for n in range(4)]
        table = hub.create_table(clients[0], TableSettings(turn_seconds=60))
        for n, client in enumerate(clients):
            table.sit(client, n)
        game = table.game
        assert table.status == "playing" and game is not None and game.to_move is not None
        mover = clients[game.to_move]
        deadline = table.deadline
        assert deadline is not None
        await asyncio.sleep(0.05)
        table.set_autoplay(mover, True)
        table.set_autoplay(mover, False)
        assert table.deadline == deadline
        table.cancel_timer()

    asyncio.run(scenario())


@pytest.mark.parametrize("store_stays_broken", [False, True])
def test_a_game_whose_end_was_not_stored_is_finished_on_reload(
    tmp_path: Path, store_stays_broken: bool
) -> None:
    """If storing ``game_over`` fails after the last play was stored, the reloaded table (the same path
    as a restart) must finish the game, not sit forever 'playing' a game that is over (R31); while the
    store keeps failing, reloading does not recurse."""

    async def scenario() -> None:
        config = Config(data_dir=tmp_path, bot_delay=0)
        store = Store(config.database_url())
        store.migrate()
        hub = Hub(store, config, Metrics())
        clients = [FakeClient(n) for n in range(4)]
        table = hub.create_table(clients[0], TableSettings(turn_seconds=60))
        for n, client in enumerate(clients):
            hub.clients[client] = {table.id}
            table.sit(client, n)
        real = store.finish_game
        failures = [1]

        def failing_once(*args: Any, **kwargs: Any) -> Any:
            if failures or store_stays_broken:
                failures[:] = []
                raise OSError("disk full")
            return real(*args, **kwargs)

        store.finish_game = failing_once  # type: ignore[method-assign]
        while table.status == "playing" and failures:
            game = table.game
            assert game is not None and game.to_move is not None
            view = game.view(game.to_move)
            mover = clients[game.to_move]
            try:
                if view["can_pass"] and (not view["legal_plays"] or len(view["legal_plays"]) > 3):
                    table.act(mover, None)
                else:
                    table.act(mover, view["legal_plays"][0])
            except Exception:
                break
        assert failures == []
        reloaded = hub.tables[table.id]
        assert reloaded is not table
        assert reloaded.game is not None and reloaded.game.over
        if store_stays_broken:
            assert reloaded.status == "playing"  # finished on the next reload or restart
        else:
            assert reloaded.status == "between" and reloaded.series.games == 1
        reloaded.cancel_timer()

    asyncio.run(scenario())
