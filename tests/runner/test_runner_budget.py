"""`botarena match --server` against a server whose call budgets refuse some of its calls:
the runner and its seats wait the refusals' RetryInfo and play every game (issue 26)."""

from __future__ import annotations

import pytest

from botarena.clients.testing import start_server
from botarena.server.match import CallBudgetLimits

from .conftest import RunCli


def test_a_runner_refused_by_the_call_budgets_waits_and_finishes_every_game(
    run_cli: RunCli, capsys: pytest.CaptureFixture[str]
) -> None:
    # Far below what the runner spends (a replay alone costs 20): it is refused often.
    budget = CallBudgetLimits(units_per_second=10, play_units_per_second=10)
    with start_server(call_budget=budget) as address:
        argv = ("--server", address, "--game", "qwixx", "--bot", "random", "--bot", "random")
        status, text, results = run_cli(*argv, "--games", "2", "--concurrency", "2")
    assert status == 0, text
    assert results["finished_games"] == 2
    logged = capsys.readouterr().out
    assert "reason=RATE_LIMITED" in logged  # the server did refuse calls of the run
    assert "may spend 10 cost units of seats' and bots' own calls" in logged  # plays too
