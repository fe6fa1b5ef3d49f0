"""Bot accounts (issue 11, point 5): registered with ``bot: true``, invited to a seat by a table's
creator, labelled as bots everywhere, played by ``niugui bot-client`` (or the protocol-only client in
``examples/``) through the same WebSocket protocol as a person — on a real server."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import ROOT, WAIT, Player, Server, drive, game_over, wait_until
from test_server_games import assert_no_leak, new_table

from niugui import Game

_names = itertools.count(1)
EXAMPLE = ROOT / "examples" / "bot_client.py"


def register_bot(server: Server, name: str | None = None) -> dict[str, Any]:
    """A new bot account (POST /api/register with ``bot: true``): its session."""
    username = name or f"bot{os.getpid()}x{next(_names)}"
    reply = httpx.post(
        server.url + "/api/register",
        json={"username": username, "password": "correct horse", "bot": True},
        timeout=30,
    )
    assert reply.status_code == 200, reply.text
    session: dict[str, Any] = reply.json()
    assert session["account"]["bot"] is True and session["account"]["username"] == username
    return session


class Process:
    """A bot client as a child process; its stderr is kept in a file for failure messages."""

    def __init__(self, args: list[str], token: str, log: Path) -> None:
        self.log = log
        with open(log, "ab") as out:
            self.process = subprocess.Popen(
                args, cwd=ROOT, stdout=out, stderr=out, env={**os.environ, "NIUGUI_TOKEN": token}
            )

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait(self, timeout: float = WAIT) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            log = self.text()[-2000:]
            raise AssertionError(f"the bot client did not exit within {timeout:g} s: {log}") from None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture
def clients() -> Iterator[list[Process]]:
    started: list[Process] = []
    yield started
    for process in started:
        process.stop()


def invite_when_connected(creator: Player, table: str, username: str, seat: int, log: Process) -> None:
    """Invite the bot account as soon as its client is connected (until then: ``bot_offline``)."""
    deadline = time.monotonic() + WAIT
    while True:
        answer = creator.request("invite", table=table, username=username, seat=seat)
        if answer["type"] == "ack":
            assert answer["data"] == {"seat": seat}
            return
        assert answer["code"] == "bot_offline", answer
        assert log.process.poll() is None, f"the bot client exited: {log.text()[-2000:]}"
        if time.monotonic() > deadline:
            raise AssertionError(f"the bot client never connected: {log.text()[-2000:]}")
        time.sleep(0.05)  # polling the invitation itself: it is accepted once the client is connected


def invited_client(
    server: Server,
    command: list[str],
    log: Path,
    clients: list[Process],
    seat: int,
    games: int,
    turn: int = 30,
) -> tuple[dict[str, Any], Process, Player, str]:
    """A new bot account whose client (``command``) is invited to ``seat`` at a new table of
    ``games`` games, where 阿丽 sits too: (the bot's session, its client, 阿丽, the table)."""
    bot = register_bot(server)
    client = Process([*command, "--server", server.url], bot["token"], log)
    clients.append(client)
    alice = Player(server, "阿丽")
    table = new_table(alice, turn_seconds=turn, games=games)
    alice.ok("sit", table=table, seat=(seat + 2) % 4)
    invite_when_connected(alice, table, bot["account"]["username"], seat, client)
    return bot, client, alice, table


def bot_actions(player: Player, table: str, seat: int, since: int = 0) -> list[str]:
    """How each action of ``seat`` was made (``player``: sent by its client), in the messages
    ``player`` received from index ``since`` on."""
    return [
        m["event"]["by"]
        for m in player.received[since:]
        if m["type"] == "event"
        and m["table"] == table
        and m["event"]["kind"] in ("play", "pass")
        and m["event"]["seat"] == seat
    ]


def test_niugui_bot_client_plays_whole_games_and_survives_a_restart(
    tmp_path: Path, clients: list[Process]
) -> None:
    """`niugui bot-client` takes the seat it is invited to, readies, plays every turn of two games,
    reconnects after the server is killed and restarted mid-game, and stops cleanly on Ctrl-C."""
    server = Server(tmp_path / "data", "--rate-limit", "50").start()
    try:
        command = [sys.executable, "-m", "niugui.cli.main", "bot-client", "--bot", "basic"]
        bot, client, alice, table = invited_client(server, command, tmp_path / "bot.log", clients, 1, 2, 300)
        username = bot["account"]["username"]
        taken = alice.wait_event("seat_taken", seat=1)
        assert taken["event"]["player"] == {
            "id": bot["account"]["id"],
            "nickname": username,
            "bot": None,
            "bot_account": True,
            "rating": None,  # never rated yet (issue 11's seat card)
            "escape_rate": None,  # no game played yet
        }
        alice.ok("fill_bots", table=table)
        alice.wait_event("deal", game_no=1)

        # Mid-game the server dies and comes back: both clients reconnect and the game goes on.
        drive([alice], table, lambda: len(bot_actions(alice, table, 1)) >= 2, what="two actions of the bot")
        server.kill()
        alice.drop()
        # After a restart every seat is in 托管 until its player is back; with bots answering at once
        # the rest of the game could be played out before 阿丽's `watch` (seen under load), so the
        # restarted server's bots and 托管 take 0.3 s a move: the game waits for the clients.
        server.args += ["--bot-delay", "0.3"]
        server.start()
        alice.connect()
        alice.ok("watch", table=table, last_seq=alice.last_seq[table])
        # 阿丽 holds back her turns until the bot client is back, so it comes back to a game in
        # progress: it must resume it (replayed actions, then a snapshot) and play on.
        back = alice.wait(
            lambda m: m["type"] == "event" and m["event"] == {"kind": "presence", "seat": 1, "online": True},
            what="the bot client back online",
        )
        resumed = alice.received.index(back)
        assert alice.states[table]["status"] == "playing"
        drive([alice], table, game_over(alice, table), what="the end of the first game")
        by = bot_actions(alice, table, 1, since=resumed)
        assert set(by) <= {"player"}, f"back, its client played its turns of the first game: {by}"
        # 托管 may have played the bot account's seat while its client was away; the second game
        # starts only once the client is back and ready, and the client plays all of it.
        second = len(alice.received)
        alice.ok("ready", table=table)
        drive([alice], table, lambda: alice.states[table]["status"] == "finished", what="the second game")
        by = bot_actions(alice, table, 1, since=second)
        assert by and set(by) == {"player"}, f"its client played every turn of the second game: {by}"
        state = alice.states[table]
        assert state["games_played"] == 2 and state["seats"][1]["player"]["bot_account"] is True

        # The table's end reaches 阿丽 and the client separately: Ctrl-C only once the client has the
        # second game's end too (else it stops after 1 game, seen under load).
        wait_until([alice], lambda: "game 2 over" in client.text(), what="the client seeing game 2 end")
        client.process.send_signal(signal.SIGINT)
        assert client.wait() == 0, client.text()
        log = client.text()
        assert "Traceback" not in log and "stopped after 2 games" in log, log
        assert log.count("connected as") >= 2, log  # it came back after the restart
    finally:
        server.stop()


def test_the_examples_client_plays_a_whole_game(
    shared_server: Server, clients: list[Process], tmp_path: Path
) -> None:
    """examples/bot_client.py — the protocol only, no niugui import — finishes a game."""
    source = EXAMPLE.read_text(encoding="utf-8")
    assert "import niugui" not in source and "from niugui" not in source
    command = [sys.executable, str(EXAMPLE), "--games", "1"]
    _, client, alice, table = invited_client(shared_server, command, tmp_path / "example.log", clients, 0, 1)
    alice.wait_event("seat_taken", seat=0)
    alice.ok("fill_bots", table=table)
    drive([alice], table, game_over(alice, table))
    by = bot_actions(alice, table, 0)
    assert by and set(by) == {"player"}, by
    assert client.wait() == 0, client.text()


def test_only_the_creator_invites_and_bad_invitations_change_nothing(shared_server: Server) -> None:
    bot_session = register_bot(shared_server)
    username = bot_session["account"]["username"]
    bot = Player(shared_server, "bot", bot_session)  # the bot account's connection, scripted
    assert bot.welcome["account"]["bot"] is True
    alice, mallory = Player(shared_server, "alice"), Player(shared_server, "mallory")
    table = new_table(alice)
    mallory.ok("watch", table=table)
    refused = mallory.request("invite", table=table, username=username, seat=1)
    assert refused["type"] == "error" and refused["code"] == "forbidden", refused
    assert "creator" in refused["message"]
    assert alice.request("invite", table=table, username="nobody-here", seat=1)["code"] == "bot_offline"
    human = httpx.post(
        shared_server.url + "/api/register",
        json={"username": f"human{os.getpid()}", "password": "correct horse"},
        timeout=30,
    ).json()
    Player(shared_server, "human", human)
    person = human["account"]["username"]
    assert alice.request("invite", table=table, username=person)["code"] == "bot_offline"
    alice.ok("sit", table=table, seat=1)
    assert alice.request("invite", table=table, username=username, seat=1)["code"] == "seat_taken"
    bot.ok("ping")
    assert not [m for m in bot.received if m["type"] == "invitation"], "a refused invitation reached the bot"

    refused = bot.request("quick_play")  # bot accounts never wait in the quick-play queue
    assert refused["type"] == "error" and refused["code"] == "forbidden", refused

    # A guest cannot turn itself into a bot account (its games were played by a person).
    guest = shared_server.guest("g")
    upgraded = httpx.post(
        shared_server.url + "/api/register",
        json={"username": f"g{os.getpid()}x", "password": "correct horse", "bot": True},
        headers={"Authorization": f"Bearer {guest['token']}"},
        timeout=30,
    )
    assert upgraded.status_code == 409, upgraded.text

    alice.ok("invite", table=table, username=username.upper(), seat=3)  # usernames: any case
    invitation = bot.wait(lambda m: m["type"] == "invitation", what="the invitation")
    assert invitation == {
        "type": "invitation", "table": table, "seat": 3, "code": None, "by": "alice",
        "settings": invitation["settings"],
    }
    assert bot.ok("sit", table=table, seat=3, code=None)["data"] == {"seat": 3}
    assert alice.request("invite", table=table, username=username)["code"] == "already_seated"

    # A private table's invitation carries its join code, which is what lets the bot account in.
    hidden = new_table(alice, private=True)
    code = alice.states[hidden]["code"]
    alice.ok("invite", table=hidden, username=username)
    invitation = bot.wait(lambda m: m["type"] == "invitation" and m["table"] == hidden, what="the invitation")
    assert (invitation["seat"], invitation["code"]) == (0, code)
    assert bot.request("sit", table=hidden, seat=0)["code"] == "not_found"  # no code: no table
    assert bot.ok("sit", table=hidden, seat=0, code=invitation["code"])["data"] == {"seat": 0}


def test_bot_accounts_are_labelled_and_their_view_holds_no_other_hand(shared_server: Server) -> None:
    """A bot account's seat says so in views, the lobby, the ledger, the leaderboard and its history;
    every frame it gets shows its own hand and nothing of another seat's (R11, R12)."""
    session = register_bot(shared_server)
    bot = Player(shared_server, "bot", session)
    alice = Player(shared_server, "alice")
    bob = Player(shared_server, "bob")  # a bot account is no person for rating (issue 33, finding 8):
    table = new_table(alice, turn_seconds=30, rated=True)  # rated with two people: on the leaderboard
    alice.ok("invite", table=table, username=session["account"]["username"], seat=1)
    invitation = bot.wait(lambda m: m["type"] == "invitation", what="the invitation")
    bot.ok("sit", table=invitation["table"], seat=invitation["seat"])
    alice.ok("sit", table=table, seat=0)
    bob.ok("sit", table=table, seat=2)
    lobby = {t["id"]: t for t in shared_server.get("/api/tables?limit=100")["tables"]}
    assert lobby[table]["seats"][1]["bot_account"] is True
    assert "bot_account" not in lobby[table]["seats"][0]  # a person's seat: no key at all
    alice.ok("fill_bots", table=table)
    drive([alice, bob, bot], table, game_over(alice, table))
    bot.wait_event("game_over")
    seat_one = bot.states[table]["seats"][1]["player"]
    assert seat_one["bot_account"] is True and seat_one["id"] == session["account"]["id"]

    events = [m["event"] for m in bot.received if m["type"] == "event"]
    over = next(e for e in events if e["kind"] == "game_over")
    game = Game.from_record(shared_server.get(f"/api/games/{over['game_id']}/record"))
    dealt = {over["game_id"]: [[str(c) for c in game.dealt(s)] for s in range(4)]}
    assert assert_no_leak(bot.received, 1, dealt) > 20
    deal = next(m for m in bot.received if m["type"] == "event" and m["event"]["kind"] == "deal")
    assert sorted(deal["view"]["hand"]) == sorted(dealt[over["game_id"]][1])

    ledger = shared_server.get(f"/api/tables/{table}/ledger")["entries"]
    assert [e["bot"] for e in ledger] == [False, True, False, True]  # a bot account, bob, the server's bot
    board = {p["id"]: p for p in shared_server.get("/api/leaderboard?limit=500")["players"]}
    assert board[session["account"]["id"]]["bot"] is True and "bot" not in board[alice.account_id]
    assert shared_server.get(f"/api/players/{session['account']['id']}/games")["bot"] is True
    replay = shared_server.get(f"/api/games/{over['game_id']}/replay")
    assert [s.get("bot_account", False) for s in replay["seats"]] == [False, True, False, False]
    me = httpx.get(shared_server.url + "/api/me", headers={"Authorization": f"Bearer {session['token']}"})
    assert me.json()["bot"] is True


def test_niugui_bot_client_refuses_a_persons_token(shared_server: Server, tmp_path: Path) -> None:
    """A person's account must not be played by a program unlabelled: the client will not run on it."""
    guest = shared_server.guest("person")
    command = [sys.executable, "-m", "niugui.cli.main", "bot-client", "--server", shared_server.url]
    client = Process(command, guest["token"], tmp_path / "person.log")
    try:
        assert client.wait() == 2
        assert "is not a bot account" in client.text()
    finally:
        client.stop()
    wrong = Process(command, "not-a-token", tmp_path / "wrong.log")
    try:
        assert wrong.wait() == 1
        assert "refused the token" in wrong.text()
    finally:
        wrong.stop()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_bot_flag_migration_goes_down_and_up_with_accounts_in_use(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """0006 adds ``accounts.bot`` and takes it away again while sessions refer to the accounts."""
    from alembic import command
    from alembic.config import Config

    from niugui.server import store as store_module
    from niugui.server.store import Store

    sqlite = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    url = sqlite if backend == "sqlite" else request.getfixturevalue("pg_schema_url")
    store = Store(url)
    try:
        store.migrate()
        store.create_account("a1", "阿丽", "hash1")
        assert store.set_credentials("a1", "robo", "argon", None, bot=True)
        config = Config()
        config.set_main_option("script_location", str(Path(store_module.__file__).with_name("migrations")))
        for step, target in ((command.downgrade, "0005"), (command.upgrade, "head")):
            with store.engine.begin() as connection:
                config.attributes["connection"] = connection
                step(config, target)
        account = store.account("a1")
        assert account is not None and account.bot is False  # the flag went with the column
        assert store.account_by_token_hash("hash1") is not None  # the session survived
    finally:
        store.close()
