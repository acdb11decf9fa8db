# mypy: disable-error-code="import-untyped"
"""What a malformed or wrong seat token gets, through real gRPC (docs/bots.md: Seat
tokens): the table there is this file."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from botarena.clients.testing import start_server
from botarena.v1 import match_pb2, match_service_pb2, match_service_pb2_grpc


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[match_service_pb2_grpc.MatchServiceStub, str, str]]:
    with start_server() as address, grpc.insecure_channel(address) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=3)
        created: match_service_pb2.CreateMatchResponse = stub.CreateMatch(
            match_service_pb2.CreateMatchRequest(config=config)
        )
        yield stub, created.match.name, created.seat_tokens[0].token


Outcome = tuple[str, str, dict[str, str]]


def refusal(call: Any, request: object, header: str | None) -> Outcome:
    """The status code, reason and metadata of a refused call."""
    metadata = [] if header is None else [("authorization", header)]
    with pytest.raises(grpc.RpcError) as caught:
        call(request, metadata=metadata)
    error: Any = caught.value
    status = rpc_status.from_call(error)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert any(detail.Unpack(info) for detail in status.details)
    return error.code().name, info.reason, dict(info.metadata)


def test_a_token_names_its_match_and_holds_a_url_safe_secret(
    served: tuple[match_service_pb2_grpc.MatchServiceStub, str, str],
) -> None:
    _, name, token = served
    match_id, secret = token.split(".")
    assert name == f"matches/{match_id}"
    assert re.fullmatch(r"[A-Za-z0-9_-]{32}", secret)


REFUSED: Outcome = ("PERMISSION_DENIED", "SEAT_TOKEN_INVALID", {})
NO_MATCH_FIELD: Outcome = ("INVALID_ARGUMENT", "MALFORMED_REQUEST", {"field": "match"})
CASES = {
    "no token, no match": (None, False, NO_MATCH_FIELD),
    "no token, the match named": (None, True, ("UNAUTHENTICATED", "SEAT_TOKEN_REQUIRED", {})),
    "not a bearer token": ("Basic abc", False, REFUSED),
    "an empty token": ("Bearer ", False, REFUSED),
    "a token over 256 characters": ("Bearer {id}." + "x" * 300, False, REFUSED),
    "no dot": ("Bearer abcdef", False, NO_MATCH_FIELD),
    "an unknown match": (
        "Bearer nosuchmatch.x",
        False,
        ("NOT_FOUND", "MATCH_NOT_FOUND", {"match": "nosuchmatch"}),
    ),
    "a wrong secret": ("Bearer {id}.wrong", False, REFUSED),
}


@pytest.mark.parametrize("rpc", ["SubmitMove", "ResignMatch"])
@pytest.mark.parametrize(("header", "named", "expected"), CASES.values(), ids=CASES.keys())
def test_a_malformed_or_wrong_token_is_refused_with_its_reason(
    served: tuple[match_service_pb2_grpc.MatchServiceStub, str, str],
    rpc: str,
    header: str | None,
    named: bool,
    expected: Outcome,
) -> None:
    stub, name, token = served
    match_id = token.partition(".")[0]
    match = name if named else ""
    request: object
    if rpc == "SubmitMove":
        move = match_pb2.Move()
        move.qwirkle.place.placements.add(x=0, y=0)
        request = match_service_pb2.SubmitMoveRequest(match=match, move=move)
    else:
        request = match_service_pb2.ResignMatchRequest(match=match)
    filled = None if header is None else header.replace("{id}", match_id)
    assert refusal(getattr(stub, rpc), request, filled) == expected
