"""The server's dealer: the deck, the 翻牌 and each game's secret from the operating system's CSPRNG
(:mod:`niugui.fairness`), with the secrets' seal keys worked out ahead of the deals.

A game needs its secret's seal key (:func:`niugui.fairness.seal_key`) at its deal and at its end.
The dealer keeps :data:`AHEAD` secrets whose keys a thread of its own has already worked out
(``seal_key`` remembers them), so the event loop works a key out only when none is ready yet (the
first deal). Why, and what it costs: docs/benchmarks.md, "Checkpoints, garbage and seal keys".
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor

from niugui import fairness
from niugui.cards import Card

AHEAD = 4
"""Secrets kept ready: more than deals come between two turns of the key thread."""

_keys = ThreadPoolExecutor(max_workers=1, thread_name_prefix="niugui-seal-keys")


def prepared_secret() -> str:
    """A new secret whose seal key is worked out (and remembered) already."""
    secret = fairness.new_secret()
    fairness.seal_key(secret)
    return secret


class FairDealer:
    """:class:`~niugui.server.tables.commands.Dealer` for the server.

    >>> dealer = FairDealer()
    >>> len(dealer.new_secret()), len(dealer.shuffled_deck())
    (64, 54)
    """

    def __init__(self) -> None:
        self._ready: deque[Future[str]] = deque()

    def turn_up(self) -> Card:
        return fairness.turn_up()

    def shuffled_deck(self) -> list[str]:
        return fairness.shuffled_deck()

    def new_secret(self) -> str:
        if self._ready and self._ready[0].done():
            secret = self._ready.popleft().result()
        else:  # none ready yet: its key is worked out at the deal
            secret = fairness.new_secret()
        while len(self._ready) < AHEAD:
            self._ready.append(_keys.submit(prepared_secret))
        return secret
