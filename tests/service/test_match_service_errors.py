# mypy: disable-error-code="import-untyped"
"""Every documented failure through real gRPC: status code and ErrorInfo reason, then the
server keeps serving. Also seat and spectator visibility."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest

from botarena.v1 import match_pb2, match_service_pb2, qwirkle_pb2

Call = Callable[[Any, Any], Awaitable[Any]]


def _place(*cells: tuple[int, int, int, int]) -> match_pb2.Move:
    move = match_pb2.Move()
    for x, y, colour, shape in cells:
        placement = move.qwirkle.place.placements.add(x=x, y=y)
        placement.tile.colour = qwirkle_pb2.QwirkleColour.ValueType(colour)
        placement.tile.shape = qwirkle_pb2.QwirkleShape.ValueType(shape)
    move.qwirkle.place.SetInParent()
    return move


async def _setup(client: Any) -> dict[str, Any]:
    created = await client.create(seed=3)
    name = created.match.name
    view = await client.view(name, None)
    mover = view.seats_to_act[0]
    return {
        "name": name,
        "mover": created.seat_tokens[mover].token,
        "waiter": created.seat_tokens[1 - mover].token,
        "version": view.state_version,
    }


def _submit(move: Any = None, *, token: str = "mover", name: Any = None, **fields: Any) -> Call:
    async def call(client: Any, match: dict[str, Any]) -> Any:
        chosen = move
        if chosen is None:
            own = await client.view(match["name"], match["mover"])
            chosen = own.legal_moves[0]
        request = match_service_pb2.SubmitMoveRequest(
            match=match["name"] if name is None else name,
            move=chosen,
            expected_state_version=fields.get("version", match["version"]),
            request_id=fields.get("request_id", ""),
        )
        metadata = {
            "mover": (("authorization", f"Bearer {match['mover']}"),),
            "waiter": (("authorization", f"Bearer {match['waiter']}"),),
            "none": None,
            "wrong": (("authorization", "Bearer not-a-token"),),
            "basic": (("authorization", "Basic abc"),),
        }[token]
        return await client.stub.SubmitMove(request, metadata=metadata)

    return call


def _stream(after: int = 0, name: Any = None) -> Call:
    async def call(client: Any, match: dict[str, Any]) -> Any:
        request = match_service_pb2.StreamMatchEventsRequest(
            match=match["name"] if name is None else name, after_state_version=after
        )
        async for _ in client.stub.StreamMatchEvents(request):
            pass

    return call


def _create(**config: Any) -> Call:
    async def call(client: Any, match: dict[str, Any]) -> Any:
        request = match_service_pb2.CreateMatchRequest(
            config=match_pb2.MatchConfig(**config), request_id=config.pop("request_id", "")
        )
        return await client.stub.CreateMatch(request)

    return call


def _create_with_limit(seconds: float) -> Call:
    async def call(client: Any, match: dict[str, Any]) -> Any:
        config = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE)
        config.time_control.move_time_limit.FromNanoseconds(int(seconds * 1e9))
        return await client.stub.CreateMatch(match_service_pb2.CreateMatchRequest(config=config))

    return call


def _raw(method: str, payload: bytes) -> Call:
    async def call(client: Any, match: dict[str, Any]) -> Any:
        callable_ = client.channel.unary_unary(
            f"/botarena.v1.MatchService/{method}",
            request_serializer=lambda data: data,
            response_deserializer=lambda data: data,
        )
        return await callable_(payload)

    return call


_UNKNOWN = "matches/0123456789abcdef"
_OPENING_OFF_ORIGIN = _place((5, 5, 1, 1))

CASES: list[tuple[str, Call, grpc.StatusCode, str]] = [
    (
        "missing-token",
        _submit(token="none"),
        grpc.StatusCode.UNAUTHENTICATED,
        "SEAT_TOKEN_REQUIRED",
    ),
    (
        "wrong-token",
        _submit(token="wrong"),
        grpc.StatusCode.PERMISSION_DENIED,
        "SEAT_TOKEN_INVALID",
    ),
    ("not-bearer", _submit(token="basic"), grpc.StatusCode.PERMISSION_DENIED, "SEAT_TOKEN_INVALID"),
    (
        "out-of-turn",
        _submit(_place((0, 0, 1, 1)), token="waiter"),
        grpc.StatusCode.FAILED_PRECONDITION,
        "NOT_YOUR_TURN",
    ),
    ("stale-version", _submit(version=7), grpc.StatusCode.ABORTED, "STALE_STATE_VERSION"),
    (
        "unknown-match",
        _submit(_place((0, 0, 1, 1)), name=_UNKNOWN),
        grpc.StatusCode.NOT_FOUND,
        "MATCH_NOT_FOUND",
    ),
    (
        "bad-name",
        _submit(_place((0, 0, 1, 1)), name="games/1"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    ),
    ("empty-move", _submit(match_pb2.Move()), grpc.StatusCode.INVALID_ARGUMENT, "MOVE_EMPTY"),
    (
        "no-action",
        _submit(match_pb2.Move(qwirkle=qwirkle_pb2.QwirkleMove())),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    ),
    (
        "unspecified-colour",
        _submit(_place((0, 0, 0, 1))),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    ),
    (
        "unknown-shape",
        _submit(_place((0, 0, 1, 99))),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    ),
    (
        "far-cell",
        _submit(_place((0, 100_000, 1, 1))),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    ),
    (
        "seven-tiles",
        _submit(_place(*[(x, 0, 1, 1 + x % 6) for x in range(7)])),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    ),
    (
        "long-request-id",
        _submit(request_id="x" * 65),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    ),
    (
        "illegal-opening",
        _submit(_OPENING_OFF_ORIGIN),
        grpc.StatusCode.FAILED_PRECONDITION,
        "OPENING_NOT_AT_ORIGIN",
    ),
    (
        "undecodable-bytes",
        _raw("SubmitMove", b"\xff\xff\xff\xff"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    ),
    ("stream-ahead", _stream(after=50), grpc.StatusCode.OUT_OF_RANGE, "STATE_VERSION_AHEAD"),
    ("stream-unknown", _stream(name=_UNKNOWN), grpc.StatusCode.NOT_FOUND, "MATCH_NOT_FOUND"),
    ("stream-negative", _stream(after=-1), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
    ("create-no-game", _create(), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
    (
        "create-unhosted-game",
        _create(game=match_pb2.Game.ValueType(99)),  # proto3 enums are open
        grpc.StatusCode.INVALID_ARGUMENT,
        "UNKNOWN_GAME",
    ),
    (
        "create-nine-seats",
        _create(game=match_pb2.GAME_QWIRKLE, seat_count=9),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_SEAT_COUNT",
    ),
    (
        "create-1ms-limit",
        _create_with_limit(0.001),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_TIME_CONTROL",
    ),
    (
        "create-long-seat-name",
        _create(game=match_pb2.GAME_QWIRKLE, seat_names=["n" * 65]),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    ),
]


@pytest.mark.parametrize(
    ("call", "code", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_failure_has_its_documented_code_and_reason(
    serve: Any, call: Call, code: grpc.StatusCode, reason: str
) -> None:
    async def scenario(client: Any) -> None:
        match = await _setup(client)
        failure = await client.failure(call(client, match))
        assert (failure.code, failure.reason, failure.domain) == (code, reason, "botarena")
        if code is grpc.StatusCode.INVALID_ARGUMENT and reason == "MALFORMED_REQUEST":
            assert failure.field_violations
        view = await client.view(match["name"], None)
        assert view.state_version == match["version"]
        await client.still_serving()

    serve(scenario)


def test_illegal_move_carries_the_category_and_the_seat_may_retry(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        match = await _setup(client)
        failure = await client.failure(_submit(_OPENING_OFF_ORIGIN)(client, match))
        assert failure.metadata["category"] == "ILLEGAL_MOVE"
        assert failure.metadata["illegal_moves"] == "1"
        accepted = await _submit()(client, match)
        assert accepted.state_version == match["version"] + 1

    serve(scenario)


def test_oversized_message_is_refused_by_the_transport_and_the_server_goes_on(
    serve: Any,
) -> None:
    async def scenario(client: Any) -> None:
        match = await _setup(client)
        request = match_service_pb2.SubmitMoveRequest(match=match["name"], request_id="x" * 100_000)
        failure = await client.failure(client.stub.SubmitMove(request))
        assert failure.code is grpc.StatusCode.RESOURCE_EXHAUSTED
        await client.still_serving()

    serve(scenario)


def test_create_needs_the_admin_token_when_the_server_has_one(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        for token in (None, "wrong"):
            failure = await client.failure(client.create(admin=token))
            assert (failure.code, failure.reason) == (
                grpc.StatusCode.UNAUTHENTICATED,
                "ADMIN_TOKEN_REQUIRED",
            )
        created = await client.create(admin="s3cret")
        assert len(created.seat_tokens) == 2

    serve(scenario, admin_token="s3cret")


def test_duplicate_request_id_returns_the_first_answer(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        match = await _setup(client)
        move = (await client.view(match["name"], match["mover"])).legal_moves[0]
        first = await _submit(move, request_id="once")(client, match)
        again = await _submit(move, request_id="once")(client, match)
        assert again == first
        view = await client.view(match["name"], None)
        assert view.state_version == first.state_version

    serve(scenario)


def test_moves_after_the_end_are_refused(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        match = await _setup(client)
        resigned = await client.stub.ResignMatch(
            match_service_pb2.ResignMatchRequest(match=match["name"]),
            metadata=(("authorization", f"Bearer {match['waiter']}"),),
        )
        assert resigned.state_version == 2
        failure = await client.failure(_submit(_place((0, 0, 1, 1)), version=2)(client, match))
        assert (failure.code, failure.reason) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "MATCH_FINISHED",
        )
        again = await client.failure(
            client.stub.ResignMatch(
                match_service_pb2.ResignMatchRequest(match=match["name"]),
                metadata=(("authorization", f"Bearer {match['mover']}"),),
            )
        )
        assert again.reason == "MATCH_FINISHED"
        await client.still_serving()

    serve(scenario)


def test_a_token_of_another_match_is_invalid(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        match = await _setup(client)
        other = await client.create(seed=9)
        failure = await client.failure(client.view(match["name"], other.seat_tokens[0].token))
        assert (failure.code, failure.reason) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "SEAT_TOKEN_INVALID",
        )

    serve(scenario)


def test_spectator_sees_no_rack_and_no_legal_moves(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        match = await _setup(client)
        view = await client.view(match["name"], None)
        assert not view.view.HasField("seat")
        assert list(view.view.qwirkle.rack) == []
        assert [seat.rack_size for seat in view.view.qwirkle.seats] == [6, 6]
        assert view.view.qwirkle.bag_size == 96
        assert list(view.legal_moves) == []
        assert not view.HasField("decision")

    serve(scenario)


def test_each_seat_sees_only_its_own_rack_and_only_the_mover_gets_moves(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        match = await _setup(client)
        mover = await client.view(match["name"], match["mover"])
        waiter = await client.view(match["name"], match["waiter"])
        assert mover.view.seat != waiter.view.seat
        assert len(mover.view.qwirkle.rack) == 6
        assert len(waiter.view.qwirkle.rack) == 6
        assert mover.legal_moves
        assert mover.decision.seat == mover.view.seat
        assert mover.decision.move_time_limit.ToSeconds() == 10
        assert list(waiter.legal_moves) == []
        assert not waiter.HasField("decision")

    serve(scenario)


def test_another_seats_exchange_shows_only_its_tile_count(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        match = await _setup(client)
        opened = await _submit()(client, match)
        exchanger = await client.view(match["name"], match["waiter"])
        exchange = next(
            move for move in exchanger.legal_moves if len(move.qwirkle.exchange.tiles) == 2
        )
        request = match_service_pb2.SubmitMoveRequest(
            match=match["name"], move=exchange, expected_state_version=opened.state_version
        )
        await client.stub.SubmitMove(
            request, metadata=(("authorization", f"Bearer {match['waiter']}"),)
        )
        seen: dict[str, Any] = {}
        for who, token in (
            ("own", match["waiter"]),
            ("other", match["mover"]),
            ("spectator", None),
        ):
            stream = client.stub.StreamMatchEvents(
                match_service_pb2.StreamMatchEventsRequest(
                    match=match["name"], after_state_version=opened.state_version
                ),
                metadata=None if token is None else (("authorization", f"Bearer {token}"),),
            )
            async for response in stream:
                seen[who] = response.event.move_applied.move.qwirkle.exchange
                stream.cancel()
                break
        assert len(seen["own"].tiles) == 2
        for who in ("other", "spectator"):
            assert list(seen[who].tiles) == []
            assert seen[who].tile_count == 2
        history = (await client.view(match["name"], None)).view.qwirkle.history
        assert history[-1].move.exchange.tile_count == 2
        assert list(history[-1].move.exchange.tiles) == []

    serve(scenario)


def test_health_and_reflection_are_on(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

        stub = reflection_pb2_grpc.ServerReflectionStub(client.channel)

        async def requests() -> Any:
            yield reflection_pb2.ServerReflectionRequest(list_services="")

        names: list[str] = []
        async for response in stub.ServerReflectionInfo(requests()):
            names = [service.name for service in response.list_services_response.service]
            break
        assert "botarena.v1.MatchService" in names
        assert "grpc.health.v1.Health" in names
        await client.still_serving()

    serve(scenario)


def test_list_matches_pages_newest_first_and_rejects_foreign_page_tokens(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        names = [(await client.create(seed=seed)).match.name for seed in range(5)]
        page = await client.stub.ListMatches(match_service_pb2.ListMatchesRequest(page_size=2))
        seen = [match.name for match in page.matches]
        while page.next_page_token:
            page = await client.stub.ListMatches(
                match_service_pb2.ListMatchesRequest(page_size=2, page_token=page.next_page_token)
            )
            seen += [match.name for match in page.matches]
        assert seen == names[::-1]
        first = await client.stub.ListMatches(match_service_pb2.ListMatchesRequest(page_size=2))
        failure = await client.failure(
            client.stub.ListMatches(
                match_service_pb2.ListMatchesRequest(
                    page_size=2,
                    page_token=first.next_page_token,
                    state=match_pb2.Match.STATE_FINISHED,
                )
            )
        )
        assert (failure.code, failure.reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_PAGE_TOKEN",
        )

    serve(scenario)


def test_get_match_reports_defaults_but_not_the_seed_while_it_runs(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        created = await client.create(seed=42)
        assert created.match.config.seed == 42  # the creator's answer carries it
        got = await client.stub.GetMatch(match_service_pb2.GetMatchRequest(name=created.match.name))
        config = got.match.config
        assert not config.HasField("seed")
        assert config.seat_count == 2
        assert config.policies.on_timeout == match_pb2.TIMEOUT_POLICY_DEFAULT_MOVE
        assert config.policies.max_illegal_moves == 3
        assert config.policies.max_stand_ins_in_a_row == 3
        assert config.policies.join_timeout.ToSeconds() == 30
        assert config.time_control.move_time_limit.ToSeconds() == 10
        assert [seat.display_name for seat in got.match.seats] == ["seat 0", "seat 1"]
        assert got.match.state == match_pb2.Match.STATE_ACTIVE

    serve(scenario)
