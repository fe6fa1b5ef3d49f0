"""Fairness by construction (issue 15, finding 8): the commitment covers the deal and the seating,
the record's actions are sealed, and ``verify_record`` refuses every forgery of a genuine record.

A genuine record is made here exactly as the server makes one (``fairness.commit`` at the deal,
``fairness.reveal`` at the end). Each forgery below keeps the genuine commitment and is as good as a
forger holding the record can make it: it replays under the rules, and wherever the forger can
recompute something (the hash chain, the result) it is recomputed. Under scheme 1 (the deck only)
the first five of them verified OK; under scheme 2 each is refused, naming why.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from niugui import fairness
from niugui.cards import Card
from niugui.fairness import FairnessError, verify_record
from niugui.game import Game
from niugui.record import RecordPlayer, meta_of_record, new_meta, record_of_game
from niugui.series import decide_first_drawer, flip_first_drawer

PLAYERS = [RecordPlayer(id=f"a{s}", nickname=f"p{s}", bot=None) for s in range(2)] + [
    RecordPlayer(id=None, nickname=f"expert bot {s}", bot="expert") for s in (2, 3)
]
SECRET = "5e" * 32
FLIP = Card.parse("H7")  # 7 counts to seat 2 (R8)


def play_out(game: Game, choice: int = 0) -> Game:
    """Play to the end: pass when allowed every other turn, else the ``choice``-th legal play."""
    while not game.over:
        plays = game.legal_combos()
        if game.can_pass() and (not plays or len(game.actions()) % 2):
            game.pass_turn()
        else:
            game.play(plays[min(choice, len(plays) - 1)])
    return game


def genuine(deck: list[str] | None = None, flip: Card = FLIP) -> dict[str, Any]:
    """A finished server record of scheme 2, as ``niugui serve`` writes it."""
    first = decide_first_drawer(None, lambda: flip)
    deck = deck or record_of_game(Game.deal(seed=21))["deck"]
    meta = new_meta("niugui serve", 1, PLAYERS, first, table="t7", started_at="2026-01-01T00:00:00+00:00")
    dealt = Game.from_deck(deck, first.seat)
    meta["fairness"] = fairness.commit(SECRET, record_of_game(dealt, meta), protocol=1)
    record = record_of_game(play_out(dealt), meta)
    record["meta"]["fairness"] = fairness.reveal(SECRET, record)
    return json.loads(json.dumps(record))


def with_proof(record: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy of ``record`` whose ``meta.fairness`` has ``changes``."""
    forged = copy.deepcopy(record)
    forged["meta"]["fairness"].update(changes)
    return forged


def resealed(record: dict[str, Any]) -> dict[str, Any]:
    """What a forger can do after changing a record: replay it, recompute result and chain."""
    game = Game.from_record({k: v for k, v in record.items() if k != "result"})
    record = record | {"result": game.result.to_dict()} if game.result else dict(record)
    proof = record["meta"]["fairness"]
    proof["chain"] = fairness.chain(proof["commitment"], record_of_game(game)["actions"])
    return record


def another_first_drawer(record: dict[str, Any]) -> dict[str, Any]:
    """Same deck, another first drawer (and a 翻牌 that agrees with it): a whole other game."""
    seat = (record["first_drawer"] + 1) % 4
    card = next(c for c in map(Card.parse, ("D5", "D6", "D7", "D8")) if flip_first_drawer(c) == seat)
    game = play_out(Game.from_deck(record["deck"], seat))
    forged = record_of_game(game, record["meta"])
    forged["meta"]["flip"] = decide_first_drawer(None, lambda: card).flip
    return resealed(forged)


def other_actions(record: dict[str, Any]) -> dict[str, Any]:
    game = play_out(Game.from_deck(record["deck"], record["first_drawer"]), choice=1)
    assert record_of_game(game)["actions"] != record["actions"]
    return resealed(record_of_game(game, record["meta"]))


def reversed_players(record: dict[str, Any]) -> dict[str, Any]:
    record["meta"]["players"].reverse()
    return record


def flip_contradicting_first_drawer(record: dict[str, Any]) -> dict[str, Any]:
    record["meta"]["flip"] = {"card": "HK", "value": 13, "first_drawer": 0}  # K counts to seat 0, not 2
    return record


def actions_cut_short(record: dict[str, Any]) -> dict[str, Any]:
    record["actions"] = record["actions"][: len(record["actions"]) // 2]
    del record["result"]
    return resealed(record)


def no_actions(record: dict[str, Any]) -> dict[str, Any]:
    record["actions"] = []
    del record["result"]
    return resealed(record)


FORGERIES: list[tuple[Callable[[dict[str, Any]], dict[str, Any]], str]] = [
    (another_first_drawer, "do not hash to the commitment"),
    (other_actions, "seal over the actions does not hold"),
    (reversed_players, "do not hash to the commitment"),
    (flip_contradicting_first_drawer, r"meta\.flip"),
    (actions_cut_short, "before the game is over"),
    (no_actions, "before the game is over"),
]


def test_a_genuine_record_verifies_with_and_without_the_commitment_seen_at_the_deal() -> None:
    record = genuine()
    proof = record["meta"]["fairness"]
    assert meta_of_record(record) == record["meta"] and proof["scheme"] == fairness.SCHEME
    assert verify_record(record).startswith("OK (scheme 2)")
    assert verify_record(record, proof["commitment"].upper()).startswith("OK")
    with pytest.raises(FairnessError, match="not the one you saw"):
        verify_record(record, "00" * 32)


@pytest.mark.parametrize(("forge", "why"), FORGERIES, ids=[f.__name__ for f, _ in FORGERIES])
def test_R8_R9_every_forgery_of_a_genuine_record_is_refused(
    forge: Callable[[dict[str, Any]], dict[str, Any]], why: str
) -> None:
    """R8, R9: the deal, the first drawer, the seats and the actions are those that were committed
    and sealed; a forgery that keeps the genuine commitment is refused, with or without ``seen``."""
    record = genuine()
    commitment = record["meta"]["fairness"]["commitment"]
    forged = forge(copy.deepcopy(record))
    assert forged != record and forged["meta"]["fairness"]["commitment"] == commitment
    for seen in (None, commitment):
        with pytest.raises(FairnessError, match=why):
            verify_record(forged, seen)


def test_the_forgeries_replay_under_the_rules_so_only_the_proof_catches_them() -> None:
    """The forgeries are not refused for breaking a rule: each replays (they are real games)."""
    for forge, _ in FORGERIES:
        forged = forge(genuine())
        Game.from_record(forged)


def test_the_commitment_is_made_before_any_action_and_covers_variant_and_protocol() -> None:
    """``commit`` sees only the dealt game; changing the variant or the protocol breaks it."""
    record = genuine()
    dealt = {**record, "actions": [], "result": None}
    proof = fairness.commit(SECRET, dealt, protocol=1)
    assert proof["commitment"] == record["meta"]["fairness"]["commitment"]
    assert fairness.commit(SECRET, dealt, protocol=2)["commitment"] != proof["commitment"]
    with pytest.raises(FairnessError, match="hash to the commitment"):
        verify_record(with_proof(record, protocol=2))
    assert '"variant":{}' in record["meta"]["fairness"]["statement"]


def test_the_seal_is_one_time_and_checked_with_public_data_only() -> None:
    """The seal verifies with the published key alone; another chain, or a changed seal, fails."""
    key, salt = fairness.seal_key(SECRET), fairness.salt_of(SECRET)
    chain = fairness.chain("ab" * 32, [{"seat": 0, "play": ["D4"]}])
    signature = fairness.seal(SECRET, chain)
    assert fairness.seal_holds(key, salt, chain, signature)
    other = fairness.chain("ab" * 32, [{"seat": 0, "play": ["C4"]}])
    assert not fairness.seal_holds(key, salt, other, signature)
    assert not fairness.seal_holds(key, salt, chain, signature[:-2] + "00")
    assert not fairness.seal_holds(key, salt, chain, "zz")
    assert salt not in SECRET and SECRET not in json.dumps(genuine())  # the secret never leaves


def test_a_changed_seal_or_statement_is_refused() -> None:
    record = genuine()
    proof = record["meta"]["fairness"]
    broken = copy.deepcopy(record)
    broken["meta"]["fairness"]["seal"] = proof["seal"][::-1]
    with pytest.raises(FairnessError, match="seal"):
        verify_record(broken)
    broken = copy.deepcopy(record)
    broken["meta"]["fairness"]["statement"] = proof["statement"].replace('"t7"', '"t8"')
    with pytest.raises(FairnessError, match="statement"):
        verify_record(broken)


def test_an_older_scheme_1_record_verifies_as_scheme_1_and_says_what_it_does_not_cover() -> None:
    """Records of scheme 1 (the commitment in meta itself) stay verifiable, named as the older scheme."""
    game = play_out(Game.deal(seed=4, first_drawer=1))
    record = record_of_game(game)
    salt = "00" * 32
    record["meta"] = {"commitment": fairness.commitment_v1(salt, record["deck"]), "salt": salt,
                      "commitment_scheme": fairness.SCHEME_V1}
    verdict = verify_record(record)
    assert verdict.startswith("OK (scheme 1, an older record)") and "covers neither" in verdict
    record["deck"][0], record["deck"][4] = record["deck"][4], record["deck"][0]
    record.pop("result")
    record["actions"] = []
    with pytest.raises(FairnessError, match="MISMATCH"):
        verify_record(record)


def test_an_unknown_scheme_or_a_record_that_does_not_replay_is_refused() -> None:
    record = genuine()
    with pytest.raises(FairnessError, match="unknown scheme"):
        verify_record(with_proof(record, scheme="x"))
    with pytest.raises(FairnessError, match="does not replay"):
        verify_record(record | {"actions": [{"seat": 9, "pass": True}]})


def test_the_worked_example_in_docs_protocol_md_is_what_the_code_computes() -> None:
    """docs/protocol.md "Fair deal" shows a worked example; its numbers come from this code."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    secret = "00" * 31 + "01"
    first = decide_first_drawer(None, lambda: Card.parse("H7"))
    players = [RecordPlayer(id="a1", nickname="小明", bot=None)] + [
        RecordPlayer(id=None, nickname=f"expert bot {s}", bot="expert") for s in (1, 2, 3)
    ]
    meta = new_meta("niugui serve", 1, players, first, table="k3x")
    game = Game.deal(seed=1, first_drawer=first.seat)
    meta["fairness"] = fairness.commit(secret, record_of_game(game, meta), protocol=1)
    commitment = meta["fairness"]["commitment"]
    salt, key = fairness.salt_of(secret), fairness.seal_key(secret)
    text = fairness.statement(record_of_game(game, meta), 1, salt, key)
    game.play("D4", seat=3)
    game.pass_turn(seat=0)
    actions = record_of_game(game)["actions"]
    chains = [fairness.chain(commitment, actions[:k]) for k in (1, 2)]
    for value in (salt, key, text, commitment, *chains):
        assert value in doc, value


def test_a_scheme_2_proof_in_a_meta_without_its_version_is_refused_not_a_crash() -> None:
    """A scheme-2 proof needs the meta schema (RECORD meta version 1); without ``meta.version`` the
    verdict is a :class:`FairnessError` that says so, never an ``AssertionError`` traceback."""
    record = genuine()
    del record["meta"]["version"]
    with pytest.raises(FairnessError, match=r"meta\.version"):
        verify_record(record)


def test_a_meta_nested_too_deeply_is_refused_not_a_crash() -> None:
    """A genuine record with a deeply nested extra meta key (here ``arena``, not in the statement)
    reads as JSON; verifying it names the meta instead of raising ``RecursionError``."""
    text = json.dumps(genuine()).replace('"table": "t7"', '"table": "t7", "arena": {"x": ' + "[" * 900
                                         + "]" * 900 + "}", 1)
    record = json.loads(text)
    assert isinstance(record["meta"]["arena"], dict)
    with pytest.raises(FairnessError, match="meta"):
        verify_record(record)


def self_consistent(record: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """``record`` with ``changes`` to its proof, re-committed and re-chained as anyone can (no secret)."""
    forged = copy.deepcopy(record)
    proof = forged["meta"]["fairness"]
    proof.update(changes)
    proof.pop("statement")
    text = fairness.statement(forged, proof["protocol"], proof["salt"], proof["seal_key"])
    proof["commitment"] = fairness.commitment_of(text)
    proof["chain"] = fairness.chain(proof["commitment"], forged["actions"])
    return forged


@pytest.mark.parametrize("field", ["commitment", "seal_key", "chain"])
def test_a_proof_value_that_is_not_hex_is_refused_not_a_crash(field: str) -> None:
    """The commitment, seal key and chain are 64 hex digits; anything else (here non-ASCII text,
    which ``hmac.compare_digest`` cannot compare) is a FairnessError naming the field."""
    record = genuine()
    if field == "seal_key":
        forged = self_consistent(record, seal_key="牛" * 64)
    else:
        forged = with_proof(record, **{field: "é" * 64})
    with pytest.raises(FairnessError, match=rf"meta\.fairness\.{field}: expected 64 hex digits"):
        verify_record(forged)
    scheme_1 = copy.deepcopy(record)
    scheme_1["meta"]["fairness"] = {"scheme": fairness.SCHEME_V1, "salt": "00" * 32, "commitment": "é"}
    with pytest.raises(FairnessError, match=r"meta\.fairness\.commitment: expected 64 hex digits"):
        verify_record(scheme_1)


@pytest.mark.parametrize("scheme", [fairness.SCHEME, fairness.SCHEME_V1])
def test_text_that_is_not_unicode_is_refused_not_a_crash(scheme: str) -> None:
    """JSON can spell a lone surrogate (``"\\ud800"``), which has no UTF-8 to hash: a FairnessError."""
    record = genuine()
    if scheme == fairness.SCHEME:
        record["meta"]["players"][0]["nickname"] = "\ud800"
    else:
        record["meta"]["fairness"] = {"scheme": scheme, "salt": "\ud800", "commitment": "00" * 32}
    with pytest.raises(FairnessError, match="not Unicode"):
        verify_record(json.loads(json.dumps(record)))
