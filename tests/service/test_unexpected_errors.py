# mypy: disable-error-code="import-untyped"
"""A bug in a handler: the caller gets UNKNOWN, the operator gets the traceback in the log,
and the server keeps serving."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
import structlog

from botarena.server.match import MatchManager
from botarena.v1 import match_service_pb2


class _BrokenList(MatchManager):
    def list_matches(self, *args: Any, **kwargs: Any) -> Any:
        raise IndexError("tuple index out of range")


def test_an_unexpected_error_is_logged_with_its_traceback(serve: Any) -> None:
    async def scenario(client: Any) -> None:
        with (
            structlog.testing.capture_logs() as logs,
            pytest.raises(grpc.aio.AioRpcError) as failed,
        ):
            await client.stub.ListMatches(match_service_pb2.ListMatchesRequest())
        assert failed.value.code() == grpc.StatusCode.UNKNOWN
        [entry] = [log for log in logs if log["event"] == "unexpected error"]
        assert entry["rpc"] == "ListMatches"
        assert entry["log_level"] == "error"
        assert entry["exc_info"] is True
        await client.still_serving()

    serve(scenario, manager=_BrokenList())
