"""``botarena ladder resume`` against a ladder server: by display name or bots/ID, with the
admin token."""

from __future__ import annotations

from pathlib import Path

import pytest

from botarena.clients.cli import main
from botarena.clients.testing import start_server
from botarena.server.ladder import Ladder, LadderSettings
from botarena.server.match import MatchManager
from botarena.server.store.ladder import BotRecord, LadderStore, SeatRecord, SeatResult


def _crashed_once(ladder: Ladder, name: str) -> BotRecord:
    """Register a bot and record one match it crashed in, so pause_after=1 pauses it."""
    bot, _ = ladder.register(name, "", "qwirkle")
    seat = SeatRecord(seat=0, bot_id=bot.bot_id, mu_before=bot.mu, sigma_before=bot.sigma)
    ladder.store.add_match(f"crash-{name}", "qwirkle", 1.0, [seat])
    result = SeatResult(
        score=0, rank=1, win=0.0, forfeited=True, timeouts=0, crashed=True, mu=bot.mu, sigma=1.0
    )
    ladder.store.record_result(f"crash-{name}", 2.0, [result], pause_after=1)
    return ladder.bot(bot.bot_id)


@pytest.mark.parametrize("by", ["display-name", "resource-name"])
def test_resume_un_pauses_a_bot_named_either_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], by: str
) -> None:
    ladder = Ladder(MatchManager(), LadderStore.open(tmp_path / "ladder.db"), LadderSettings())
    bot = _crashed_once(ladder, "crasher")
    assert (bot.paused, bot.bad_streak) == (True, 1)
    name = bot.name if by == "display-name" else f"bots/{bot.bot_id}"
    with start_server(ladder=ladder, admin_token="sesame") as address:
        arguments = ["resume", name, "--game", "qwirkle", "--admin-token", "sesame"]
        status = main(["ladder", *arguments, "--server", address])
    assert status == 0
    assert f"resumed crasher (bots/{bot.bot_id})" in capsys.readouterr().out
    after = ladder.bot(bot.bot_id)
    assert (after.paused, after.bad_streak, after.crashes) == (False, 0, 1)


@pytest.mark.parametrize(
    ("arguments", "status", "message"),
    [
        (["nobody", "--admin-token", "sesame"], 2, "no qwirkle bot named 'nobody'"),
        (["crasher"], 1, "ADMIN_TOKEN_REQUIRED"),
    ],
    ids=["unknown-name", "no-admin-token"],
)
def test_resume_refuses_an_unknown_name_or_a_missing_admin_token(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    arguments: list[str],
    status: int,
    message: str,
) -> None:
    monkeypatch.delenv("BOTARENA_ADMIN_TOKEN", raising=False)
    ladder = Ladder(MatchManager(), LadderStore.open(tmp_path / "ladder.db"), LadderSettings())
    bot = _crashed_once(ladder, "crasher")
    with start_server(ladder=ladder, admin_token="sesame") as address:
        assert main(["ladder", "resume", *arguments, "--server", address]) == status
    assert message in capsys.readouterr().out
    assert ladder.bot(bot.bot_id).paused
