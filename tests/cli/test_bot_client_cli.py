"""``niugui bot-client``: a wrong argument is one line on stderr and exit status 2, never a traceback;
a token that is not a bot account's is refused before anything is played."""

from __future__ import annotations

import pytest

from niugui.cli.main import main


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--server", "http://127.0.0.1:1"], "token"),
        (["--server", "http://127.0.0.1:1", "--token", "t", "--bot", "nosuchbot"], "unknown bot"),
        (["--server", "ftp://127.0.0.1:1", "--token", "t"], "http"),
        (["--server", "http://127.0.0.1:1", "--token", "t", "--budget", "0"], "--budget"),
        (["--server", "http://127.0.0.1:1", "--token", "t", "--stop-after", "0"], "--stop-after"),
        (["--server", "http://127.0.0.1:1", "--token", "t", "--max-tables", "51"], "--max-tables"),
    ],
)
def test_bad_arguments_are_one_line(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NIUGUI_TOKEN", raising=False)
    assert main(["bot-client", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("niugui bot-client: error:") and said in err and err.count("\n") == 1, err
