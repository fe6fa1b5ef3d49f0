"""Perft-style ground truth for move generation, computed by the oracle (never by the engine's move
generator) and kept as data in perft.json beside this file.

Regenerate (only when the rules or the chosen deals change) with:

    .venv/bin/python tests/engine/engine_perft.py

For each fixed seeded deal it plays one deterministic line of the whole game — the action at each
decision is picked from the oracle's legal plays in a canonical order — and records, at every
decision, how many legal plays there are and whether the mover may pass. It also counts the distinct
action sequences (plays and passes) of depth 1–3 from the opening of a few deals.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

from engine_oracle import RefGame, canonical, deal

PERFT_FILE = Path(__file__).with_name("perft.json")
DEALS = [(1, 0), (2, 1), (3, 2), (4, 3), (42, 0), (77, 2), (2026, 1), (31337, 3)]
"""(seed, first_drawer) of the deals whose lines are recorded: Game.deal(seed=..., first_drawer=...)."""
TREE_DEALS = [(1, 0), (42, 0), (2026, 1)]
"""Deals whose opening is counted to depth 3."""
TREE_DEPTH = 3


def choose(step: int, options: list[tuple[str, ...]], can_pass: bool) -> tuple[str, ...] | None:
    """The deterministic policy of the recorded lines: pass every third decision when allowed (or when
    nothing beats), else the option at a step-dependent index of the canonical order."""
    if can_pass and (step % 3 == 1 or not options):
        return None
    return options[(step * 7 + 3) % len(options)]


def line(deck: list[str], first_drawer: int) -> tuple[list[dict[str, Any]], list[list[int]]]:
    """Play the policy's line to the end; the record actions and, per decision, [plays, can_pass]."""
    ref = RefGame(deal(deck, first_drawer))
    actions: list[dict[str, Any]] = []
    counts: list[list[int]] = []
    while not ref.over:
        seat = ref.to_move
        assert seat is not None
        options = canonical(ref.legal())
        counts.append([len(options), int(ref.can_pass())])
        choice = choose(len(actions), options, ref.can_pass())
        if choice is None:
            ref.pass_turn(seat)
            actions.append({"seat": seat, "pass": True})
        else:
            ref.play(seat, choice)
            actions.append({"seat": seat, "play": list(choice)})
    return actions, counts


def tree(ref: RefGame, depth: int) -> int:
    """How many distinct action sequences of exactly ``depth`` actions start here (perft)."""
    if depth == 0 or ref.over:
        return 1 if depth == 0 else 0
    seat = ref.to_move
    assert seat is not None
    options = canonical(ref.legal())
    if depth == 1:
        return len(options) + int(ref.can_pass())
    total = 0
    for play in options:
        child = copy.deepcopy(ref)
        child.play(seat, play)
        total += tree(child, depth - 1)
    if ref.can_pass():
        child = copy.deepcopy(ref)
        child.pass_turn(seat)
        total += tree(child, depth - 1)
    return total


def generate() -> dict[str, Any]:
    from niugui import Game  # only for the seeded shuffle of each deal

    lines = []
    for seed, first_drawer in DEALS:
        deck = Game.deal(seed=seed, first_drawer=first_drawer).to_record()["deck"]
        actions, counts = line(deck, first_drawer)
        lines.append(
            {"seed": seed, "first_drawer": first_drawer, "deck": deck, "actions": actions, "counts": counts}
        )
    trees = []
    for seed, first_drawer in TREE_DEALS:
        deck = Game.deal(seed=seed, first_drawer=first_drawer).to_record()["deck"]
        nodes = [tree(RefGame(deal(deck, first_drawer)), d) for d in range(1, TREE_DEPTH + 1)]
        trees.append({"seed": seed, "first_drawer": first_drawer, "deck": deck, "nodes": nodes})
    return {
        "about": "Ground truth for move generation, computed by tests/engine/engine_oracle.py; see "
        "tests/engine/engine_perft.py. counts[i] = [legal plays, can_pass] before actions[i]; "
        "nodes[d-1] = distinct action sequences of depth d from the opening.",
        "lines": lines,
        "trees": trees,
    }


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    data = generate()
    PERFT_FILE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {PERFT_FILE}: {sum(len(x['counts']) for x in data['lines'])} positions", file=sys.stderr)
