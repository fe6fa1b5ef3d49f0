"""The page's JavaScript port of the rules (js/rules.js, js/fairness.js) agrees with the engine.

The page judges a selection itself — its combination (R13–R25) and the reason it cannot be played
(R14, R17, R22, R24–R26) — and checks the fairness proof by dealing the revealed deck (R9), so these
check it, case by case, against the Python engine. Replays are the server's (tests/server/
test_replays.py); the page has no copy of the trick rules (test_page_has_no_second_engine.py).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from niugui import Game, classify, parse_cards
from niugui.cards import CARDS

IMPORT = """async ({code, arg}) => {
  const rules = await import('/js/rules.js');
  const fairness = await import('/js/fairness.js');
  return (new Function('rules', 'fairness', 'arg', code))(rules, fairness, arg);
}"""


@pytest.fixture(scope="module")
def page(browser: Any, static_url: str) -> Any:
    page = browser.new_page()
    page.goto(f"{static_url}/index.html#/replay")
    yield page
    page.close()


def run(page: Any, code: str, arg: Any) -> Any:
    return page.evaluate(IMPORT, {"code": code, "arg": arg})


def _card_sets(rng: random.Random) -> list[list[str]]:
    """Valid combinations of every kind (from legal plays) and random sets, mostly not combinations."""
    sets: list[list[str]] = []
    for seed in range(6):
        game = Game.deal(seed=seed, first_drawer=0)
        game.play(game.legal_plays()[0])
        sets += [[str(c) for c in p] for p in game.legal_plays()]
    for _ in range(1500):
        size = rng.choice([1, 2, 2, 3, 4, 5, 5, 5, 6])
        sets.append([str(c) for c in rng.sample(CARDS, size)])
    return sets


def test_classify_and_beats_match_the_engine(page: Any) -> None:
    """R13–R25: the same kind for every set, and the same answer to "does a beat b" (R17, R24)."""
    rng = random.Random(5)
    sets = _card_sets(rng)
    got = run(page, "return arg.map((s) => { const c = rules.classify(s); return c && c.kind; });", sets)
    expected = [(c.kind if (c := classify(parse_cards(s))) else None) for s in sets]
    assert got == expected
    combos = [s for s, kind in zip(sets, expected, strict=True) if kind]
    pairs = [(rng.choice(combos), rng.choice(combos)) for _ in range(3000)]
    js_beats = run(
        page, "return arg.map(([a, b]) => rules.beats(rules.classify(a), rules.classify(b)));", pairs
    )
    py_beats = [classify(parse_cards(a)).beats(classify(parse_cards(b))) for a, b in pairs]  # type: ignore[union-attr]
    assert js_beats == py_beats
    assert any(py_beats) and not all(py_beats)


@pytest.mark.parametrize("first_drawer", range(4))
def test_the_fairness_check_deals_as_the_engine(page: Any, first_drawer: int) -> None:
    """R9: the proof check deals the revealed deck to the same hands as the engine."""
    game = Game.deal(seed=first_drawer + 20, first_drawer=first_drawer)
    deck = game.to_record()["deck"]
    code = "return fairness.dealHands(arg.deck, arg.first);"
    hands = run(page, code, {"deck": deck, "first": first_drawer})
    assert [sorted(h) for h in hands] == [sorted(str(c) for c in game.dealt(s)) for s in range(4)]


def _view_with(current: list[str] | None, hand: list[str], counts_sum: int = 40) -> dict[str, Any]:
    counts = [len(hand), 13, 13, counts_sum - len(hand) - 26]
    return {
        "seat": 0, "to_move": 0, "counts": counts, "over": False, "hand": hand,
        "current": None if current is None else {"seat": 1, "play": current, "kind": "x"},
        "legal_plays": [], "can_pass": current is not None,
    }


@pytest.mark.parametrize(
    ("selected", "current", "counts_sum", "rule"),
    [
        (["C5"], None, 54, "R26"),  # the first play must contain ♦4
        (["BJ", "RJ"], None, 40, "R14"),  # jokers never pair
        (["C5"], ["S9"], 40, "R17"),  # does not beat
        (["C5", "D5"], ["S9"], 40, "R17"),  # a pair on a single
        (["C5", "C6", "C7", "C8", "D9"], ["S9"], 40, "R24"),  # five-card on a loose play
        (["C5", "C6", "C7", "C8", "RJ"], None, 40, "R22"),  # a joker in a straight
        (["C5", "H6"], None, 40, "R25"),  # no combination
    ],
)
def test_reasons_name_the_rule(page: Any, selected: list[str], current: list[str] | None, counts_sum: int,
                               rule: str) -> None:
    view = _view_with(current, [*selected, "SA"], counts_sum)
    verdict = run(page, "return rules.judgeSelection(arg.v, arg.s);", {"v": view, "s": selected})
    assert verdict["ok"] is False
    assert verdict["rule"] == rule


def test_a_legal_selection_is_accepted(page: Any) -> None:
    view = _view_with(["S9"], ["C5", "SA"])
    view["legal_plays"] = [["SA"]]
    verdict = run(page, "return rules.judgeSelection(arg, ['SA']);", view)
    assert verdict == {"ok": True}


def test_commitment_hash_matches_hashlib(page: Any) -> None:
    """The fairness check hashes salt:deck exactly as the server's scheme says (SHA-256), with and
    without crypto.subtle."""
    deck = [str(c) for c in Game.deal(seed=4).to_record()["deck"]]
    salt = "ab" * 32
    text = f"{salt}:{','.join(deck)}"
    expected = hashlib.sha256(text.encode()).hexdigest()
    got = run(
        page,
        """return fairness.sha256Hex(fairness.commitmentInput(arg.salt, arg.deck)).then((h) =>
             [h, fairness.sha256HexFallback(new TextEncoder().encode(arg.text)),
              fairness.sha256HexFallback(new TextEncoder().encode('')),
              fairness.sha256HexFallback(new TextEncoder().encode('x'.repeat(119)))]);""",
        {"salt": salt, "deck": deck, "text": text},
    )
    empty, long = hashlib.sha256(b"").hexdigest(), hashlib.sha256(b"x" * 119).hexdigest()
    assert got == [expected, expected, empty, long]


def test_the_page_checks_a_scheme_2_proof_as_the_engine_makes_it(page: Any) -> None:
    """A scheme-2 proof (issue 15): the page hashes the revealed statement to the commitment and checks
    that the statement is about the revealed deck and first drawer; a changed statement fails."""
    from niugui import fairness
    from niugui.record import RecordPlayer, new_meta, record_of_game
    from niugui.series import decide_first_drawer

    secret = "7a" * 32
    first = decide_first_drawer(None, lambda: CARDS[20])
    players = [RecordPlayer(id=None, nickname="小明", bot=None)] * 4
    meta = new_meta("niugui serve", 1, players, first, table="t")
    game = Game.deal(seed=6, first_drawer=first.seat)
    meta["fairness"] = fairness.commit(secret, record_of_game(game, meta), protocol=1)
    game.escape(0)
    record = record_of_game(game, meta)
    proof = fairness.reveal(secret, record) | {"deck": record["deck"]}
    dealt = [[str(c) for c in game.dealt(s)] for s in range(4)]
    check = "return fairness.verifyProof(arg.proof, arg.dealt, arg.first).then((r) => [r.ok, r.hash]);"
    ok, digest = run(page, check, {"proof": proof, "dealt": dealt, "first": first.seat})
    assert ok is True and digest == proof["commitment"]
    changed = proof | {"statement": proof["statement"].replace('"t"', '"u"')}
    assert run(page, check, {"proof": changed, "dealt": dealt, "first": first.seat})[0] is False
    assert run(page, check, {"proof": proof, "dealt": dealt, "first": (first.seat + 1) % 4})[0] is False
    # Issue 15: the reveal must carry the commitment the page saw published at the deal; a server
    # that dealt another deck afterwards could only reveal a commitment of its own making.
    seen = proof | {"published": proof["commitment"].upper()}
    assert run(page, check, {"proof": seen, "dealt": dealt, "first": first.seat})[0] is True
    other = proof | {"published": hashlib.sha256(b"another deal").hexdigest()}
    why = "return fairness.verifyProof(arg.proof, arg.dealt, arg.first).then((r) => [r.ok, r.publishedOk]);"
    assert run(page, why, {"proof": other, "dealt": dealt, "first": first.seat}) == [False, False]


@pytest.mark.parametrize(
    ("play", "shown"),
    [
        ("D4 C5 HA S2 D3", "HA S2 D3 D4 C5"),  # A2345: the A is low (R4)
        ("CT HJ SQ DK CA", "CT HJ SQ DK CA"),  # 10JQKA: the A is high
        ("S4 S5 S6 S7 S8", "S4 S5 S6 S7 S8"),
        ("D9 C9 S3 H3 D3", "D3 H3 S3 D9 C9"),  # full house: the triple first (R20)
        ("BJ D7 C7 H7 S7", "D7 C7 H7 S7 BJ"),  # four plus one: the four first (R21)
    ],
)
def test_plays_are_shown_in_reading_order(page: Any, play: str, shown: str) -> None:
    assert run(page, "return rules.displayOrder(arg);", play.split()) == shown.split()


def test_every_word_of_the_page_exists_in_both_languages(page: Any) -> None:
    keys = page.evaluate("async () => (await import('/js/i18n.js')).stringKeys()")
    assert set(keys["zh"]) == set(keys["en"])


@pytest.mark.parametrize(
    ("typed", "table", "code"),
    [
        ("b6wt5k6x/7jwk2u", "b6wt5k6x", "7jwk2u"),  # table id and code
        ("http://host:8000/#/table/b6wt5k6x?code=7jwk2u", "b6wt5k6x", "7jwk2u"),  # a shared link
        ("  7jwk2u ", "7jwk2u", "7jwk2u"),  # the code alone, as the table screen shows it
    ],
)
def test_join_box_reads_codes_and_links(page: Any, typed: str, table: str, code: str) -> None:
    got = page.evaluate("async (text) => (await import('/js/lobby.js')).parseJoin(text)", typed)
    assert got == {"table": table, "joinCode": code}
