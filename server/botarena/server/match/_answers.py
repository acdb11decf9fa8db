"""The first answers to a seat's commands, by ``request_id`` (AIP-155: safe retries).

A retry of a submit or resign with the same ``request_id`` gets the first answer again,
or the first error raised again, without doing anything. The last few are kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar, cast

from botarena.server.match._errors import MatchError

__all__ = ["Answers"]

_AnswerT = TypeVar("_AnswerT")
"""An answer type: one per command, so a key's answer has its command's type."""
_CACHE_SIZE = 64


class Answers:
    """One seat's remembered answers, keyed by command and ``request_id``.

    Args:
        size: How many answers to keep; the oldest is forgotten first.
    """

    __slots__ = ("_answers", "_size")

    def __init__(self, size: int = _CACHE_SIZE) -> None:
        self._answers: OrderedDict[tuple[str, str], object] = OrderedDict()
        self._size = size

    def answer(self, command: str, request_id: str, run: Callable[[], _AnswerT]) -> _AnswerT:
        """Return ``run()``'s answer, or the first answer to ``request_id`` if it had one.

        Raises:
            MatchError: What ``run`` raised, or what it raised the first time.
        """
        key = (command, request_id)
        if request_id and key in self._answers:
            first = self._answers[key]
            if isinstance(first, MatchError):
                raise first
            return cast(_AnswerT, first)
        try:
            answer = run()
        except MatchError as error:
            self.remember(command, request_id, error)
            raise
        self.remember(command, request_id, answer)
        return answer

    def remember(self, command: str, request_id: str, answer: object) -> None:
        """Keep ``answer`` as the first one to ``request_id`` (none without an id)."""
        if not request_id:
            return
        answers = self._answers
        answers[command, request_id] = answer
        if len(answers) > self._size:
            answers.popitem(last=False)
