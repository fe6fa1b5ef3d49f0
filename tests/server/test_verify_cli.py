"""``niugui verify``: a record's deck must hash, with its revealed salt, to the published commitment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niugui import Game, fairness
from niugui.cli.main import main
from niugui.record import record_of_game


def server_record(tmp_path: Path, tamper: bool = False) -> tuple[Path, str]:
    deck = fairness.shuffled_deck()
    salt = fairness.new_salt()
    commitment = fairness.commitment(salt, deck)
    game = Game.from_deck(deck, 1)
    while not game.over:
        plays = game.legal_plays()
        if game.can_pass() and (not plays or len(plays) > 2):
            game.pass_turn()
        else:
            game.play(plays[0])
    proof = {"commitment": commitment, "salt": salt, "scheme": fairness.SCHEME}
    record = record_of_game(game, {"fairness": proof})
    if tamper:  # the same hands' cards in another order: a different deal than the one committed
        record["deck"][0], record["deck"][4] = record["deck"][4], record["deck"][0]
        record.pop("result")
        record["actions"] = []
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path, commitment


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
    elif change == "missing":
        args = ["verify", str(tmp_path / "nope.json")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1
