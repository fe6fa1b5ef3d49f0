"""``expert``: rule-based play as a strong human plays it.

It splits its hand into the fewest plays (:mod:`.hand_split`), tracks every card played and who
passed on what, infers its partner from its own ♠3/♠2, the public marks and who beats whom
(:mod:`.knowledge`), and then:

- leads five-card plays first, then its weakest play; cashes its controls (plays that cannot be
  beaten) when that lets it go out; feeds a partner about to go out; leads no single (and, if it can,
  no pair) into an opponent holding one (two) cards;
- follows an opponent with a play that fits its split, breaks a combination only when an opponent is
  close to going out, and keeps its top cards for control while the play to beat is low;
- does not beat a known partner unless an opponent still to act could go out over it;
- in 1v3 it knows the three others are all against it, and as 双牛鬼 keeps back its second black
  card so as not to tell them (R11); as one of the three, once the 双牛鬼 has shown both marks, it
  treats the other two as partners;
- once only two seats hold cards it searches the race exactly (:mod:`.endgame`).

API for callers that need speed (the ``search`` bot's rollouts):

- ``expert_action(view, style=DEFAULT) -> list[str] | None`` — the policy on a seat's view (what
  :class:`ExpertBot` does); about 0.06 ms at p50 and 0.5 ms at p99 of CPU time.
- ``expert_combo(game, style=DEFAULT) -> Combo | None`` — the same policy for the seat to move of a
  ``Game`` (for example a sampled deal) without building a view — about 100 µs a decision: apply it
  with ``game.play(combo)``, or ``game.pass_turn()`` for ``None``. It reads only what that seat may
  know: its own hand and the public history. ``style=FAST`` skips the race search (about 80 µs,
  a little weaker), for rollouts that need speed more.
- ``decide(situation, style=DEFAULT) -> Combo | None`` — the policy on a
  :class:`~.knowledge.Situation`.

The policy is deterministic: the same situation always gives the same action.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from ..cards import BLACK_MASK, codes_of
from ..combos import FIVE, Combo, classify_mask
from ..game import SEATS, Game
from ..moves import plays
from .base import Action, Bot, View
from .endgame import race_move
from .hand_split import Split, split_cost, split_hand
from .knowledge import (
    Situation,
    Tracker,
    infer_sides,
    situation_from_game,
    situation_from_view,
)
from .power import beatable, lowness

_GAIN_ORDER = itemgetter(0, 1)
"""A scored follow (plays it costs the split, value, combo) ranks by cost, then value; ties keep the
first (the combos themselves are never compared)."""
FOLLOW_LIMIT = 40
"""At most this many candidate five-card follows are weighed (the weakest ones and the split's own)."""


@dataclass(frozen=True, slots=True)
class Style:
    """The expert's tunable judgement; the defaults are the measured best (docs/bots.md)."""

    partner_threshold: float = 0.9
    """Treat a seat as a partner only when at least this sure of it."""
    allow_break: int = 0
    """Extra plays a follow may cost the split when no opponent is close to going out."""
    urgent_leader: int = 3
    """An opponent's play is urgent to beat when it holds at most this many cards..."""
    urgent_threat: int = 2
    """...or when any opponent holds at most this many."""
    keep_control: bool = True
    """Do not spend an unbeatable play on a low play while the hand is still long."""
    use_declined: bool = True
    """Count a play as a winner when every opponent has passed on one of its group at least as high."""
    fives_first: bool = True
    """Lead five-card plays before loose ones."""
    solve_races: bool = True
    """With two seats left, search the (perfect-information) race instead of guessing."""
    count_sizes: bool = True
    """An opponent holding fewer cards than a play has cannot beat it."""
    hide_double: bool = True
    """As 双牛鬼, keep back the second of ♠3/♠2 while possible, so the three do not learn it is 1v3."""


DEFAULT = Style()
FAST = Style(solve_races=False)
"""The policy without the two-seat race search: cheaper for rollouts (measured 0.017 points a game
weaker head to head)."""


class ExpertBot(Bot):
    """The rule-based expert; deterministic (it needs no random numbers).

    Options (``load_bot("expert", **options)``) are the fields of :class:`Style`.
    """

    name = "expert"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed, **options)
        self.style = Style(**options)
        self.tracker = Tracker(0)
        """The history read at its last decision: the next one reads only what happened since."""

    def choose(self, view: View) -> Action:
        return expert_action(view, self.style, self.tracker)


def expert_action(view: View, style: Style = DEFAULT, tracker: Tracker | None = None) -> Action:
    """The expert's action for the seat whose view this is (card codes, or ``None`` to pass).

    ``tracker`` keeps the history read from one decision to the next (see :class:`Tracker`); the
    action is the same with or without it.

    >>> from niugui import Game
    >>> game = Game.deal(seed=1, first_drawer=0)
    >>> "D4" in expert_action(game.view(game.to_move))      # the opening play holds ♦4 (R26)
    True
    """
    combo = decide(situation_from_view(view, tracker), style)
    return None if combo is None else codes_of(combo.mask)


def expert_combo(game: Game, style: Style = DEFAULT, tracker: Tracker | None = None) -> Combo | None:
    """The expert's action for the seat to move of ``game``, without building a view (fast path);
    ``tracker`` as for :func:`expert_action` (one per game: a rollout's seats share it)."""
    return decide(situation_from_game(game, tracker), style)


def decide(sit: Situation, style: Style = DEFAULT) -> Combo | None:
    """The expert policy."""
    if style.solve_races and _in_race(sit):
        found, action = race_move(sit.hand, sit.unseen, sit.current)
        if found:
            return action
    sides = infer_sides(sit)
    partners = [s for s in range(SEATS) if sides.partner[s] >= style.partner_threshold]
    if sit.current is None:
        return _lead(sit, style, partners)
    return _follow(sit, style, partners)


# ---- helpers ----------------------------------------------------------------------------------


def _in_race(sit: Situation) -> bool:
    """Only this seat and one other hold cards: a perfect-information race (see :mod:`.endgame`)."""
    return sum(1 for n in sit.counts if n) == 2 and sit.counts[sit.seat] > 0


def _holders(sit: Situation) -> list[int]:
    """Seats other than this one still holding cards, in play order after it (R7, R27)."""
    return [s for s in ((sit.seat + i) % SEATS for i in (1, 2, 3)) if sit.counts[s]]


def _opponents(sit: Situation, partners: list[int]) -> list[int]:
    return [s for s in _holders(sit) if s not in partners]


def _min_count(sit: Situation, seats: list[int]) -> int:
    return min((sit.counts[s] for s in seats), default=99)


def _holds(sit: Situation, style: Style, combo: Combo, unseen: int, opponents: list[int]) -> bool:
    """Whether ``combo`` should win its trick: nothing unseen beats it, no opponent holds as many
    cards as it has, or every opponent that could has passed on a play of its group at most as high
    (so likely holds nothing higher)."""
    if not beatable(combo, unseen):
        return True
    able = [s for s in opponents if sit.counts[s] >= combo.size] if style.count_sizes else opponents
    if not able:
        return True
    if not style.use_declined:
        return False
    return all(sit.declined[s].get(combo.group, 1 << 20) <= combo.value for s in able)


def _secret(sit: Situation, style: Style) -> int:
    """For a 双牛鬼 that has shown one of ♠3/♠2: the other one, which it keeps back while it can,
    because showing both marks tells the other three it is alone against them (R11)."""
    if not style.hide_double:
        return 0
    shown = sit.marks[sit.seat]
    if shown and (shown | sit.hand) & BLACK_MASK == BLACK_MASK:
        return sit.hand & BLACK_MASK
    return 0


def _whole(hand: int) -> Combo | None:
    return classify_mask(hand)


# ---- leading ----------------------------------------------------------------------------------


def _lead(sit: Situation, style: Style, partners: list[int]) -> Combo:
    hand = sit.hand
    if sit.opening:
        return _opening(hand)
    whole = _whole(hand)
    if whole is not None:
        return whole  # go out at once (R30)
    split = split_hand(hand)
    unseen = sit.unseen
    opponents = _opponents(sit, partners)
    threat = _min_count(sit, opponents)
    controls: list[Combo] = []
    others: list[Combo] = []
    for combo in split.plays:
        (controls if _holds(sit, style, combo, unseen, opponents) else others).append(combo)
    if len(others) <= 1 and controls:
        return max(controls, key=lambda c: (c.size, c.value))  # keep the lead, then go out
    holders = _holders(sit)
    partner = next((s for s in holders if s in partners), -1)
    if partner >= 0 and sit.counts[partner] == 1 and not _opponent_first_on_one(sit, partners, partner):
        return _weakest_single(hand)  # let the partner go out with its last card
    if threat == 1:
        multi = [c for c in split.plays if c.size > 1]
        if multi:
            return min(multi, key=lambda c: (-lowness(c), -c.size, c.value))
        return max(split.plays, key=lambda c: c.value)  # the highest single: hardest to beat
    pool = others or list(split.plays)
    secret = _secret(sit, style)
    if secret:
        hidden = [c for c in pool if not c.mask & secret]
        pool = hidden or [c for c in split.plays if not c.mask & secret] or pool
    if threat == 2:
        no_pairs = [c for c in pool if c.group != 2]
        pool = no_pairs or pool
    if style.fives_first:
        return min(pool, key=lambda c: (c.group != FIVE, -lowness(c), -c.size, c.value))
    return min(pool, key=lambda c: (-lowness(c), -c.size, c.value))


def _opening(hand: int) -> Combo:
    """The first play must contain ♦4 (R26): the split's play holding it, else the cheapest one."""
    split = split_hand(hand)
    for combo in split.plays:
        if combo.mask & 1:
            return combo
    options = [c for c in plays(hand) if c.mask & 1]
    return min(options, key=lambda c: (split_hand(hand ^ c.mask).cost, c.value))


def _weakest_single(hand: int) -> Combo:
    low = hand & -hand
    combo = classify_mask(low)
    assert combo is not None
    return combo


def _opponent_first_on_one(sit: Situation, partners: list[int], partner: int) -> bool:
    """Whether an opponent holding one card plays before ``partner`` in this trick."""
    for s in _holders(sit):
        if s == partner:
            return False
        if sit.counts[s] == 1 and s not in partners:
            return True
    return False


# ---- following --------------------------------------------------------------------------------


def _follow(sit: Situation, style: Style, partners: list[int]) -> Combo | None:
    current = sit.current
    assert current is not None
    hand = sit.hand
    legal = plays(hand, current)
    if not legal:
        return None
    for combo in legal:
        if combo.mask == hand:
            return combo  # go out (R30)
    unseen = sit.unseen
    opponents = _opponents(sit, partners)
    threat = _min_count(sit, opponents)
    if sit.current_seat in partners:
        return _over_partner(sit, partners, legal, unseen)
    split = split_hand(hand)
    candidates = _candidates(legal, split)
    scored: list[tuple[int, int, Combo]] = []
    for combo in candidates:
        count, _ = split_cost(hand ^ combo.mask)
        scored.append((count - (split.count - 1), combo.value, combo))
    delta, _, best = min(scored, key=_GAIN_ORDER)
    leader_left = sit.counts[sit.current_seat]
    urgent = leader_left <= style.urgent_leader or threat <= style.urgent_threat
    if leader_left <= 2 or threat == 1:
        allowed = 9  # stop an opponent from going out whatever it costs
    elif urgent or split.count <= 3:
        allowed = 1
    else:
        allowed = style.allow_break
    if delta > allowed:
        return None
    secret = _secret(sit, style)
    if best.mask & secret and allowed < 9:
        hidden = [(t, v, c) for t, v, c in scored if t <= allowed and not c.mask & secret]
        if not hidden:
            return None  # showing the second mark would tell the three they face a 双牛鬼 (R11)
        best = min(hidden, key=_GAIN_ORDER)[2]
    if style.keep_control and not urgent and not beatable(best, unseen) and lowness(current) >= 4:
        loose_after = sum(1 for c in split_hand(hand ^ best.mask).plays if beatable(c, unseen))
        if loose_after >= 3:
            return None  # keep a top card for control rather than spend it on a low play
    return best


def _candidates(legal: list[Combo], split: Split) -> list[Combo]:
    if len(legal) <= FOLLOW_LIMIT:
        return legal
    own = {c.mask for c in split.plays}
    chosen = [c for c in legal if c.mask in own]
    chosen += sorted(legal, key=lambda c: c.value)[:FOLLOW_LIMIT]
    return chosen


def _over_partner(sit: Situation, partners: list[int], legal: list[Combo], unseen: int) -> Combo | None:
    """Beat a partner's play only when an opponent still to act could go out over it."""
    current = sit.current
    assert current is not None
    danger = any(
        sit.counts[s] <= current.size and s not in partners
        for s in _holders(sit)
        if s != sit.current_seat
    )
    if not danger or not beatable(current, unseen):
        return None
    safe = [c for c in legal if not beatable(c, unseen)]
    return min(safe, key=lambda c: c.value) if safe else None
