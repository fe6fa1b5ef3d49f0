"""Perft-style ground truth (R13–R29): the exact number of legal plays (and whether passing is
allowed) at every position of fixed lines of fixed seeded deals, and the number of distinct action
sequences of depth 1–3 from a few openings — data in perft.json, made by the oracle (engine_perft.py).
A change in move generation shows here at once."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_helpers import codes
from engine_oracle import RefGame, canonical, deal
from engine_perft import PERFT_FILE

from niugui import Game

DATA: dict[str, Any] = json.loads(PERFT_FILE.read_text(encoding="utf-8"))


def test_perft_data_is_present_and_large_enough() -> None:
    assert len(DATA["lines"]) >= 8 and sum(len(x["counts"]) for x in DATA["lines"]) >= 500
    assert len(DATA["trees"]) >= 3 and all(len(t["nodes"]) == 3 for t in DATA["trees"])


@pytest.mark.parametrize("line", DATA["lines"], ids=lambda x: f"seed{x['seed']}-fd{x['first_drawer']}")
def test_R26_R27_R29_perft_legal_play_counts_along_fixed_lines(line: dict[str, Any]) -> None:
    """At every decision of the recorded line: the engine's number of legal plays and can_pass equal
    the oracle's recorded counts; every 10th position is also re-derived by the brute-force oracle."""
    seed, first_drawer = line["seed"], line["first_drawer"]
    assert Game.deal(seed=seed, first_drawer=first_drawer).to_record()["deck"] == line["deck"], "seeded deal"
    game = Game.from_deck(line["deck"], first_drawer)
    ref = RefGame(deal(line["deck"], first_drawer))
    for step, (action, (count, can_pass)) in enumerate(zip(line["actions"], line["counts"], strict=True)):
        assert game.to_move == action["seat"], step
        plays = [codes(p) for p in game.legal_plays()]
        assert (len(plays), int(game.can_pass())) == (count, can_pass), f"step {step}"
        assert len({frozenset(p) for p in plays}) == len(plays), f"a play listed twice at step {step}"
        if step % 10 == 0:
            assert canonical(plays) == canonical(ref.legal()), f"step {step}"
        if "pass" in action:
            game.pass_turn(seat=action["seat"])
            ref.pass_turn(action["seat"])
        else:
            game.play(action["play"], seat=action["seat"])
            ref.play(action["seat"], action["play"])
    assert game.over and game.result is not None and game.result.to_dict() == ref.result()


def perft(game: Game, depth: int) -> int:
    """Distinct action sequences of exactly ``depth`` actions from ``game`` (plays and passes)."""
    if depth == 0:
        return 1
    if game.over:
        return 0
    combos = game.legal_combos()
    if depth == 1:
        return len(combos) + int(game.can_pass())
    total = 0
    for combo in combos:
        child = game.copy()
        child.play(combo)
        total += perft(child, depth - 1)
    if game.can_pass():
        child = game.copy()
        child.pass_turn()
        total += perft(child, depth - 1)
    return total


@pytest.mark.parametrize("tree", DATA["trees"], ids=lambda x: f"seed{x['seed']}-fd{x['first_drawer']}")
def test_R26_R27_perft_action_sequences_from_the_opening(tree: dict[str, Any]) -> None:
    game = Game.from_deck(tree["deck"], tree["first_drawer"])
    before = game.to_record()
    assert [perft(game, d) for d in range(1, len(tree["nodes"]) + 1)] == tree["nodes"]
    assert game.to_record() == before  # copies, not the game, were played
