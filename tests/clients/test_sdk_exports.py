"""The SDK's public names are pinned: adding or removing one is a deliberate change
(Temporal's ``test_client_exports.py``)."""

from __future__ import annotations

import importlib

import pytest

EXPORTS = {
    "botarena.clients": [
        "DOMAIN",
        "ENV_MATCH",
        "ENV_SEED",
        "ENV_SERVER",
        "ENV_TOKEN",
        "EXIT_CONNECTION_FAILED",
        "EXIT_MATCH_OVER",
        "AsyncLadderClient",
        "AsyncMatchClient",
        "AlreadyExistsError",
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
        "AdmissionRefusedError",
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
    ],
    "botarena.clients.search": [
        "ForwardModel",
        "QueendominoModel",
        "QwirkleModel",
        "QwixxModel",
        "SealedChoice",
        "ThinkBudget",
        "building_of",
        "config_of",
        "determinize",
        "domino_of",
        "forward_model",
        "kingdom_of",
        "placement_of",
        "player_of",
        "think_budget",
        "tile_message",
        "tile_of",
    ],
    "botarena.clients.testing": [
        "IllegalBotMoveError",
        "InProcessGame",
        "ServerProcess",
        "SlowBot",
        "free_port",
        "play_in_process",
        "start_server",
        "start_server_async",
    ],
}


@pytest.mark.parametrize("module_name", sorted(EXPORTS))
def test_public_names_are_pinned(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert sorted(module.__all__) == sorted(EXPORTS[module_name])


@pytest.mark.parametrize("module_name", sorted(EXPORTS))
def test_every_public_name_exists_and_is_documented(module_name: str) -> None:
    module = importlib.import_module(module_name)
    for name in module.__all__:
        value = getattr(module, name)
        if callable(value):
            assert value.__doc__, name


def test_public_objects_come_from_private_modules() -> None:
    # The code lives in `_`-prefixed modules; the package only re-exports it.
    module = importlib.import_module("botarena.clients")
    for name in module.__all__:
        origin = getattr(getattr(module, name), "__module__", None)
        if origin is not None and origin != "builtins":
            assert origin.startswith("botarena.clients._"), (name, origin)
