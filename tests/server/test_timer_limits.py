"""The turn timer's default and limits are declared once, in ``niugui/server/timer.py`` (issue 27):
the protocol's models, quick play's default and the 托管 rule read them from there."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import ValidationError

from niugui.server import protocol, timer
from niugui.server.config import Community

SERVER = Path(__file__).resolve().parents[2] / "niugui" / "server"
TIMER_FIELDS = ("turn_seconds", "quick_turn_seconds")


def test_the_protocol_publishes_the_declared_timer_limits() -> None:
    settings = protocol.TableSettings.model_json_schema()["properties"]["turn_seconds"]
    assert (settings["default"], settings["minimum"], settings["maximum"]) == (
        timer.TURN_SECONDS_DEFAULT, timer.TURN_SECONDS_MIN, timer.TURN_SECONDS_MAX
    )
    quick = protocol.QuickPlay.model_json_schema()["properties"]["turn_seconds"]["anyOf"][0]
    assert quick["minimum"] == timer.QUICK_TURN_SECONDS_MIN
    assert quick["maximum"] == timer.QUICK_TURN_SECONDS_MAX
    assert Community().quick_turn_seconds == timer.TURN_SECONDS_DEFAULT
    assert protocol.TableSettings().turn_seconds == timer.TURN_SECONDS_DEFAULT


@pytest.mark.parametrize("seconds", [timer.TURN_SECONDS_MIN / 2, timer.TURN_SECONDS_MAX + 1])
def test_a_timer_outside_the_limits_is_refused(seconds: float) -> None:
    protocol.TableSettings(turn_seconds=timer.TURN_SECONDS_MIN)
    protocol.TableSettings(turn_seconds=timer.TURN_SECONDS_MAX)
    with pytest.raises(ValidationError):
        protocol.TableSettings(turn_seconds=seconds)


def test_no_turn_timer_number_is_written_outside_timer_py() -> None:
    """Every ``turn_seconds`` field and default in the server names its number from ``timer``."""
    found = []
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = isinstance(node, ast.AnnAssign) and ast.unparse(node.target) in TIMER_FIELDS
            if isinstance(node, ast.AnnAssign) and named and node.value is not None:
                numbers = [n.value for n in ast.walk(node.value)
                           if isinstance(n, ast.Constant) and isinstance(n.value, int | float)]
                if numbers:
                    found.append(f"{path.relative_to(SERVER)}:{node.lineno} writes {numbers}")
    assert not found, found
