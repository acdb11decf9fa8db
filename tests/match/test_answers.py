"""The first answers to a seat's commands by ``request_id`` (``_answers.Answers``)."""

from __future__ import annotations

import pytest

from botarena.server.match import MatchFinishedError
from botarena.server.match._answers import Answers


class _Calls:
    def __init__(self) -> None:
        self.count = 0

    def ok(self) -> str:
        self.count += 1
        return f"answer-{self.count}"

    def fail(self) -> str:
        self.count += 1
        raise MatchFinishedError()


def test_a_repeated_request_id_gets_the_first_answer_without_running_again() -> None:
    answers, calls = Answers(), _Calls()
    assert answers.answer("submit", "r1", calls.ok) == "answer-1"
    assert answers.answer("submit", "r1", calls.ok) == "answer-1"
    assert calls.count == 1


def test_a_repeated_request_id_raises_the_first_error_again() -> None:
    answers, calls = Answers(), _Calls()
    with pytest.raises(MatchFinishedError) as first:
        answers.answer("submit", "r1", calls.fail)
    with pytest.raises(MatchFinishedError) as again:
        answers.answer("submit", "r1", calls.ok)
    assert again.value is first.value
    assert calls.count == 1


def test_without_a_request_id_every_call_runs() -> None:
    answers, calls = Answers(), _Calls()
    assert [answers.answer("submit", "", calls.ok) for _ in range(2)] == ["answer-1", "answer-2"]


def test_request_ids_are_per_command() -> None:
    answers, calls = Answers(), _Calls()
    answers.answer("submit", "r1", calls.ok)
    assert answers.answer("resign", "r1", calls.ok) == "answer-2"


def test_a_remembered_answer_is_returned_as_the_first() -> None:
    answers, calls = Answers(), _Calls()
    answers.remember("resign", "r1", "made-again")
    assert answers.answer("resign", "r1", calls.ok) == "made-again"
    assert calls.count == 0


def test_the_oldest_answer_is_forgotten_past_the_size() -> None:
    answers, calls = Answers(size=2), _Calls()
    for request_id in ("r1", "r2", "r3"):
        answers.answer("submit", request_id, calls.ok)
    assert answers.answer("submit", "r3", calls.ok) == "answer-3"
    assert answers.answer("submit", "r1", calls.ok) == "answer-4"
