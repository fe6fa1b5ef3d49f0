"""Fair use in one class (niugui/server/fairuse.py, docs/security.md): each kind of request is
charged before it is handled and settled after — a right guess and a table never made are given
back — and the search-bot cap counts by account and by the address that created each table."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from fastapi import HTTPException

from niugui.server.config import Limits
from niugui.server.fairuse import FairUse
from niugui.server.limits import Exempt, TokenBucket
from niugui.server.metrics import Metrics
from niugui.server.tables import Fault


def fair(**limits: Any) -> FairUse:
    return FairUse(Limits(**limits), Exempt.parse(["127.0.0.1"]), Metrics())


def client(account: str, address: str = "10.0.0.1") -> Any:
    """What fair use reads of a connection: its account, its address key and its own buckets."""
    return SimpleNamespace(
        account_id=account, address=address, bucket=TokenBucket(1000, 1000), chat_bucket=TokenBucket(0, 1)
    )


def test_right_guesses_are_given_back_wrong_ones_count() -> None:
    rules, eve = fair(code_guesses_per_minute=3), client("eve")
    for _ in range(10):  # right: given back after the hub said yes
        rules.charge_guess(eve)
        rules.refund_guess(eve)
    for _ in range(3):  # wrong: kept
        rules.charge_guess(eve)
    with pytest.raises(Fault, match="too many wrong table ids"):
        rules.charge_guess(eve)


def test_a_table_refused_is_given_back_and_the_address_shares_one_cap() -> None:
    rules = fair(tables_per_account_hour=2, tables_per_address_hour=3)
    ann, bob = client("ann"), client("bob")
    rules.charge_table(ann)
    rules.refund_table(ann)  # the hub refused it: no table was made
    rules.charge_table(ann)
    rules.charge_table(ann)
    with pytest.raises(Fault, match="at most 2 new tables per hour"):
        rules.charge_table(ann)
    rules.charge_table(bob)  # the address's third
    with pytest.raises(Fault):
        rules.charge_table(bob)


def test_the_search_cap_counts_by_account_and_by_creating_address() -> None:
    rules = fair(search_tables_per_account=1, search_tables_per_address=2)
    ann, bob, cat = client("ann"), client("bob"), client("cat")
    rules.table_made(ann, "t1")
    rules.table_made(bob, "t2")
    open_tables = [("t1", "ann", "search"), ("t2", "bob", "search"), ("t3", "ann", "basic")]
    with pytest.raises(Fault, match="search bots think hard"):
        rules.check_search_cap(ann, None, open_tables)  # ann has one
    rules.check_search_cap(ann, "t1", open_tables)  # changing that very table: not counted
    with pytest.raises(Fault):
        rules.check_search_cap(cat, None, open_tables)  # cat's address made two
    rules.check_search_cap(client("dan", "10.0.0.2"), None, open_tables)


def test_login_failures_count_per_username_whatever_its_case() -> None:
    rules = fair(login_failures_per_account_hour=2)
    rules.check_failures("Ann")
    rules.count_failure("Ann")
    rules.count_failure("ann")
    with pytest.raises(HTTPException) as refused:
        rules.check_failures("ANN")
    assert refused.value.status_code == 429 and refused.value.detail["code"] == "too_many_failures"
    rules.check_failures("bob")


def test_an_exempt_address_is_never_counted() -> None:
    rules = fair(guests_per_address_hour=1, logins_per_address_minute=1)
    for _ in range(5):
        rules.charge_guest("127.0.0.1")
        rules.charge_login("127.0.0.1")
    rules.charge_login("10.0.0.9")
    with pytest.raises(HTTPException):
        rules.charge_login("10.0.0.9")


def test_messages_take_from_the_connection_the_account_and_the_address() -> None:
    rules = fair(account_rate=0.001, account_burst=2, address_rate=1000, address_burst=1000)
    one, two = client("ann"), client("ann")
    assert not rules.over_rate(one) and not rules.over_rate(two)
    assert rules.over_rate(one)  # the account's burst is spent, whichever connection asks
