"""A bot that, once armed, holds its next turn until the test lets it go: the test can then type
while the bots are moving, and know that it did (``niugui play --bots gated_bot:GatedBot``).

The gate is the directory ``$NIUGUI_TEST_GATE``: the test creates ``armed``; at its next turn a bot
removes it, creates ``waiting`` and plays once ``go`` exists (or after a minute, so a broken test
cannot hang the program).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from niugui.bots.base import Action, View
from niugui.bots.basic import BasicBot


class GatedBot(BasicBot):
    name = "gated"

    def choose(self, view: View) -> Action:
        gate = Path(os.environ["NIUGUI_TEST_GATE"])
        armed = gate / "armed"
        if armed.exists():
            armed.unlink()
            (gate / "waiting").touch()
            deadline = time.monotonic() + 60
            while not (gate / "go").exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        return super().choose(view)
