"""The server's dealer: every secret fresh from the CSPRNG, and after the first deal each one comes
with its seal key worked out already, off the event loop (so a deal does not hold up every table)."""

from __future__ import annotations

from niugui import fairness
from niugui.server.tables.dealer import AHEAD, FairDealer


def test_secrets_after_the_first_come_with_their_seal_keys_worked_out() -> None:
    dealer = FairDealer()
    drawn = [dealer.new_secret()]
    for _ in range(3 * AHEAD):
        dealer._ready[0].result(timeout=30)  # the key thread's work, waited for
        before = fairness.seal_key.cache_info()
        secret = dealer.new_secret()
        key = fairness.seal_key(secret)
        after = fairness.seal_key.cache_info()
        assert after.hits > before.hits, "worked out ahead (the key thread itself only ever misses)"
        assert key == fairness.seal_key.__wrapped__(secret), "the remembered key is the key"
        drawn.append(secret)
    assert len(set(drawn)) == len(drawn), "no secret is dealt twice"
    assert all(len(s) == 64 and int(s, 16) >= 0 for s in drawn)


def test_a_deal_with_nothing_ready_draws_a_fresh_secret() -> None:
    dealer = FairDealer()
    first, second = dealer.new_secret(), FairDealer().new_secret()
    assert first != second and len(dealer._ready) == AHEAD
