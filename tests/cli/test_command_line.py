"""The command line's conventions: help, version, each subcommand's usage on its errors, replaying a
line of a JSON-lines file, the annotated action list, compact records, verify's explanation, and
``niugui serve`` checking its address before it announces anything."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import niugui
from niugui import Game
from niugui.cards import CARDS
from niugui.cli.text import record_text
from niugui.record import RecordPlayer, new_meta
from niugui.series import decide_first_drawer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def niugui_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "niugui.cli.main", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_niugui_alone_prints_the_help_and_exits_0() -> None:
    run = niugui_cli()
    assert run.returncode == 0 and run.stderr == ""
    assert run.stdout.startswith("usage: niugui ") and "arguments are required" not in run.stdout
    for command in ("replay", "play", "serve", "verify", "arena"):
        assert f"    {command} " in run.stdout


def test_version() -> None:
    run = niugui_cli("--version")
    assert run.returncode == 0 and run.stdout == f"niugui {niugui.__version__}\n"


@pytest.mark.parametrize(("args", "usage", "error"), [
    (["replay", "a", "b"], "usage: niugui replay ", "niugui replay: error: unrecognized arguments: b"),
    (["replay"], "usage: niugui replay ", "niugui replay: error: the following arguments are required: FILE"),
    (["play", "--bogus"], "usage: niugui play ", "niugui play: error: unrecognized arguments: --bogus"),
    (["arena", "--games", "x"], "usage: niugui arena ", "niugui arena: error: argument --games"),
    (["verify", "a", "b"], "usage: niugui verify ", "niugui verify: error: unrecognized arguments: b"),
    (["nosuch"], "usage: niugui ", "niugui: error: argument COMMAND: invalid choice: 'nosuch'"),
    (["--bogus"], "usage: niugui ", "niugui: error: unknown command or argument: --bogus"),
])
def test_a_usage_error_shows_the_usage_of_its_own_subcommand(args: list[str], usage: str, error: str) -> None:
    run = niugui_cli(*args)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith(usage) and error in run.stderr and "Traceback" not in run.stderr


def json_lines(tmp_path: Path) -> tuple[Path, list[dict[str, object]]]:
    records = [json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
               for name in ("sample-game.json", "one-against-three.json", "escaped.json")]
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path, records


def test_replay_file_colon_n_replays_line_n_of_a_json_lines_file(tmp_path: Path) -> None:
    path, records = json_lines(tmp_path)
    run = niugui_cli("replay", "--json", f"{path}:2")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == records[1]["result"]
    human = niugui_cli("replay", f"{path}:3")
    assert human.returncode == 0 and f"({path}:3)" in human.stdout and "逃跑 escape" in human.stdout
    for line in ("0", "4"):
        bad = niugui_cli("replay", f"{path}:{line}")
        assert bad.returncode == 1
        assert bad.stderr == (f"niugui replay: {path}:{line}: no such line; the file has 3 "
                              "(lines count from 1)\n")


def test_replay_of_a_whole_json_lines_file_says_how_to_pick_a_line(tmp_path: Path) -> None:
    path, _ = json_lines(tmp_path)
    run = niugui_cli("replay", str(path))
    assert run.returncode == 1
    assert run.stderr == (f"niugui replay: {path}: holds 3 records, one a line (JSON lines); "
                          f"replay one with niugui replay {path}:N, N from 1 to 3\n")


def test_a_file_whose_name_ends_in_colon_n_is_still_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "odd:2"
    path.write_text((EXAMPLES / "sample-game.json").read_text(encoding="utf-8"), encoding="utf-8")
    run = niugui_cli("replay", "--json", str(path))
    assert run.returncode == 0 and json.loads(run.stdout)["outcome"] == "sweep"


def test_r29_r30_actions_mark_trick_ends_the_lead_passing_on_and_going_out(tmp_path: Path) -> None:
    """--actions: after each trick's last pass who took it and who leads (R29), by 接风 when the taker
    is out; after a seat's last card its place (R30)."""
    game = Game.from_hands(
        [["D4", "S3", "RJ", "C4", "H4", "S4", "D5", "C5", "H5", "S5", "D6", "C6", "H6"],
         ["DT", "CT", "HT", "ST", "DJ", "CJ", "HJ", "SJ", "DQ", "CQ", "HQ", "SQ", "DK"],
         ["D7", "C7", "H7", "S7", "D8", "C8", "H8", "S8", "D9", "C9", "H9", "S9", "CK", "HK"],
         ["SK", "DA", "CA", "HA", "SA", "D2", "C2", "H2", "S2", "D3", "C3", "H3", "BJ", "S6"]],
        first_drawer=3,
    )
    for play in ("D4 C4 H4 S4 D5", "C5 H5 S5 D6 C6", "H6", "S3", "RJ"):  # seat 0 keeps the lead, then is out
        game.play(play, seat=0)
        for _ in range(3):
            game.pass_turn()
    path = tmp_path / "g.json"
    path.write_text(json.dumps(game.to_record()), encoding="utf-8")
    run = niugui_cli("replay", "--actions", str(path))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    listed = lines[lines.index("出牌记录 actions") + 1:]
    assert listed[:5] == [
        "  #0   seat 0  四带一 four plus one ♦4 ♣4 ♥4 ♠4 ♦5",
        "  #1   seat 1  过门 pass",
        "  #2   seat 2  过门 pass",
        "  #3   seat 3  过门 pass",
        "        一轮结束 trick over: seat 0 took it; seat 0 leads (R29)",
    ]
    assert "  #16  seat 0  单牌 single 大王" in listed
    out = listed.index("  #16  seat 0  单牌 single 大王") + 1
    assert listed[out] == "        出完 out: seat 0, 上游 1st out (R30)"
    assert listed[-1] == ("        一轮结束 trick over: seat 0 took it but is out; 接风 the lead passes on "
                          "to seat 1 (R29)")
    assert sum(1 for line in listed if line.startswith("  #")) == len(game.to_record()["actions"])


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")))
def test_records_are_written_compact_exactly_as_the_examples(name: str) -> None:
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    assert record_text(json.loads(text)) + "\n" == text


def test_verify_explains_that_only_server_games_carry_a_commitment(tmp_path: Path) -> None:
    record = json.loads((EXAMPLES / "sample-game.json").read_text(encoding="utf-8"))
    players = [RecordPlayer(id=None, nickname="you", bot=None)] + [
        RecordPlayer(id=None, nickname="bot basic", bot="basic") for _ in range(3)]
    record["meta"] = new_meta("niugui play", 1, players, decide_first_drawer(0, lambda: CARDS[0]))
    path = tmp_path / "play.json"
    path.write_text(record_text(record), encoding="utf-8")
    run = niugui_cli("verify", str(path))
    assert run.returncode == 1
    assert run.stderr == (
        "niugui verify: meta.fairness: missing: this game comes from niugui play, which deals on your own "
        "machine; only games dealt by `niugui serve` carry a commitment (published before the first action)\n"
    )
    assert "revealed when the game is over" not in run.stderr
    del record["meta"]
    path.write_text(record_text(record), encoding="utf-8")
    run = niugui_cli("verify", str(path))
    assert run.returncode == 1 and run.stderr == (
        "niugui verify: meta: missing: only games dealt by `niugui serve` carry a commitment "
        "(published before the first action)\n")


def taken_port() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


@pytest.mark.parametrize("where", ["taken port", "unknown host", "not this machine"])
def test_serve_checks_its_address_before_announcing_anything(where: str, tmp_path: Path) -> None:
    """A port in use or a host that cannot be listened on: one `niugui serve:` line, exit status 1,
    and nothing announced or created before it."""
    with taken_port() as busy:
        host, port = "127.0.0.1", busy.getsockname()[1]
        if where == "unknown host":
            host = "no-such-host.invalid"
        elif where == "not this machine":
            host = "192.0.2.1"  # TEST-NET-1: never an address of this machine; nothing is sent to it
        run = niugui_cli("serve", "--host", host, "--port", str(port), "--data", str(tmp_path / "data"))
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.startswith(f"niugui serve: cannot listen on {host}:{port}: ")
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert not (tmp_path / "data").exists()  # no database opened either


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_serve_logs_uvicorns_own_lines_as_json_like_the_rest(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    argv = [sys.executable, "-m", "niugui.cli.main", "serve", "--port", str(port),
            "--data", str(tmp_path / "d")]
    with open(log, "wb") as err:
        server = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=err)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, log.read_text(encoding="utf-8")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not answer /healthz within 60 s"
            time.sleep(0.05)
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=30)
    assert out.decode().startswith(f"niugui server on http://127.0.0.1:{port}/")
    lines = log.read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines]  # every line is one JSON object
    loggers = {entry["logger"] for entry in entries}
    assert "uvicorn.error" in loggers and any(name.startswith("niugui") for name in loggers)
    assert any(entry["message"] == "Application startup complete." for entry in entries)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX only")
def test_play_resume_with_nothing_to_resume_is_one_line(tmp_path: Path) -> None:
    run = niugui_cli("play", "--resume", "--save", str(tmp_path))
    assert run.returncode == 2 and run.stderr == f"niugui play: --resume: no unfinished game in {tmp_path}\n"
