"""The Python SDK for botarena: clients for the MatchService, the Bot protocol and tools.

* :class:`MatchClient` / :class:`AsyncMatchClient` call the MatchService and return the
  generated messages of ``botarena.v1``; failures raise :class:`BotarenaError`
  subclasses, chosen by the error's reason.
* :class:`Bot`, :func:`run_bot` and :func:`run_bot_async` play a seat to the end;
  :func:`bot_main` turns a bot into a command (docs/bots.md).
* :class:`AsyncLadderClient` calls the LadderService; :func:`run_ladder_bot` (blocking)
  and :func:`run_ladder_bot_async` keep a registered bot connected to a ladder and play
  its assignments.
* :class:`ServerTarget` names a server, plaintext (``host:port``) or TLS
  (``botarena+tls://host:port?ca=PATH``), for every client entry point; a failed TLS
  agreement raises :class:`TlsError` naming its likely cause.
* :mod:`botarena.clients.testing` starts a real server in-process for tests.
"""

from __future__ import annotations

import os

# Before grpc loads (it reads this once): its C core logs every failed TLS handshake at
# INFO on stderr, which is a bot's log; the SDK's own error already names the cause.
# Whoever sets GRPC_VERBOSITY keeps their choice (the `botarena` command does the same).
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

from botarena.clients._aio import AsyncMatchClient
from botarena.clients._bot import (
    Bot,
    DecisionClock,
    current_decision,
    run_bot,
    run_bot_async,
)
from botarena.clients._client import MatchClient
from botarena.clients._errors import (
    DOMAIN,
    AdmissionRefusedError,
    AlreadyExistsError,
    AuthenticationError,
    BotarenaError,
    BotNotFoundError,
    CallCancelledError,
    DeadlineExceededError,
    FailedPreconditionError,
    IllegalMoveError,
    InvalidRequestError,
    MatchFinishedError,
    MatchNotFinishedError,
    MatchNotFoundError,
    MatchOnOtherNodeError,
    NotFoundError,
    NotYourTurnError,
    PermissionDeniedError,
    RateLimitedError,
    ResourceExhaustedError,
    SeatForfeitedError,
    StaleStateError,
    StateVersionAheadError,
    StoreUnavailableError,
    TlsError,
    TransientError,
    UnavailableError,
    from_grpc_error,
)
from botarena.clients._ladder import AsyncLadderClient, run_ladder_bot, run_ladder_bot_async
from botarena.clients._main import (
    ENV_MATCH,
    ENV_SEED,
    ENV_SERVER,
    ENV_TOKEN,
    EXIT_CONNECTION_FAILED,
    EXIT_MATCH_OVER,
    bot_main,
)
from botarena.clients._retry import RetryPolicy
from botarena.clients._target import ServerTarget

__all__ = [
    "DOMAIN",
    "ENV_MATCH",
    "ENV_SEED",
    "ENV_SERVER",
    "ENV_TOKEN",
    "EXIT_CONNECTION_FAILED",
    "EXIT_MATCH_OVER",
    "AdmissionRefusedError",
    "AlreadyExistsError",
    "AsyncLadderClient",
    "AsyncMatchClient",
    "AuthenticationError",
    "Bot",
    "BotNotFoundError",
    "BotarenaError",
    "CallCancelledError",
    "DeadlineExceededError",
    "DecisionClock",
    "FailedPreconditionError",
    "IllegalMoveError",
    "InvalidRequestError",
    "MatchClient",
    "MatchFinishedError",
    "MatchNotFinishedError",
    "MatchNotFoundError",
    "MatchOnOtherNodeError",
    "NotFoundError",
    "NotYourTurnError",
    "PermissionDeniedError",
    "RateLimitedError",
    "ResourceExhaustedError",
    "RetryPolicy",
    "SeatForfeitedError",
    "ServerTarget",
    "StaleStateError",
    "StateVersionAheadError",
    "StoreUnavailableError",
    "TlsError",
    "TransientError",
    "UnavailableError",
    "bot_main",
    "current_decision",
    "from_grpc_error",
    "run_bot",
    "run_bot_async",
    "run_ladder_bot",
    "run_ladder_bot_async",
]
