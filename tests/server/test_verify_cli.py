"""``niugui verify``: a record's deal and seating must hash to the published commitment, its actions be the
sealed ones (the six forgeries: tests/engine/test_engine_fairness.py); errors are one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niugui import Game, fairness
from niugui.cli.main import main
from niugui.record import RecordPlayer, new_meta, record_of_game
from niugui.series import decide_first_drawer


def server_record(tmp_path: Path, tamper: bool = False) -> tuple[Path, str]:
    """A finished record made as the server makes one (scheme 2: commit at the deal, reveal at the end)."""
    secret = fairness.new_secret()
    players = [RecordPlayer(id=None, nickname=f"p{s}", bot=None) for s in range(4)]
    first = decide_first_drawer(None, fairness.turn_up)
    meta = new_meta("niugui serve", 1, players, first, table="t1")
    game = Game.from_deck(fairness.shuffled_deck(), first.seat)
    meta["fairness"] = fairness.commit(secret, record_of_game(game, meta), protocol=1)
    while not game.over:
        plays = game.legal_plays()
        if game.can_pass() and (not plays or len(plays) > 2):
            game.pass_turn()
        else:
            game.play(plays[0])
    record = record_of_game(game, meta)
    record["meta"]["fairness"] = fairness.reveal(secret, record)
    if tamper:  # the same hands' cards in another order: a different deal than the one committed
        record["deck"][0], record["deck"][4] = record["deck"][4], record["deck"][0]
        record.pop("result")
        record["actions"] = []
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path, str(meta["fairness"]["commitment"])


def test_a_fair_record_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, commitment = server_record(tmp_path)
    assert main(["verify", str(path)]) == 0
    assert main(["verify", str(path), "--commitment", commitment.upper()]) == 0
    assert "OK" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("tamper", "MISMATCH"),
        ("seen", "not the one you saw"),
        ("no-meta", "meta: missing"),
        ("not-json", "is not JSON"),
        ("too-deep", "is not JSON"),
        ("missing", "cannot read"),
    ],
)
def test_a_bad_record_fails_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str, message: str
) -> None:
    path, _ = server_record(tmp_path, tamper=change == "tamper")
    args = ["verify", str(path)]
    if change == "seen":
        args += ["--commitment", "00" * 32]
    elif change == "no-meta":
        record = json.loads(path.read_text())
        del record["meta"]
        path.write_text(json.dumps(record))
    elif change == "not-json":
        path.write_text("{oops")
    elif change == "too-deep":  # nested deeper than the JSON reader follows: a RecursionError
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif change == "missing":
        args = ["verify", str(tmp_path / "nope.json")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1
