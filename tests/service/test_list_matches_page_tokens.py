# mypy: disable-error-code="import-untyped"
"""ListMatches refuses every page token it did not make for the same query."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from botarena.server.store import SqliteStore
from botarena.v1 import match_pb2, match_service_pb2


def _token(text: str | bytes) -> str:
    raw = text.encode() if isinstance(text, str) else text
    return base64.urlsafe_b64encode(raw).decode()


# Each makes a forged token from a real one of a query filtered on STATE_ACTIVE.
_FORGED: dict[str, Callable[[str], str]] = {
    "huge int": lambda _: _token(f'{{"before": {10**30}, "filters": ["", 0]}}'),
    "beyond int64": lambda _: _token(f'{{"before": {2**63}, "filters": ["", 0]}}'),
    "negative": lambda _: _token('{"before": -5, "filters": ["", 0]}'),
    "zero": lambda _: _token('{"before": 0, "filters": ["", 0]}'),
    "float": lambda _: _token('{"before": 3.5, "filters": ["", 0]}'),
    "float exponent": lambda _: _token('{"before": 1e30, "filters": ["", 0]}'),
    "bool": lambda _: _token('{"before": true, "filters": ["", 0]}'),
    "string": lambda _: _token('{"before": "3", "filters": ["", 0]}'),
    "null": lambda _: _token('{"before": null, "filters": ["", 0]}'),
    "no filters": lambda _: _token('{"before": 3}'),
    "a list": lambda _: _token("[3]"),
    "deep nesting": lambda _: _token("[" * 40_000),
    "not json": lambda _: _token("before=3"),
    "not utf-8": lambda _: _token(b"\xff\xfe"),
    "bad base64": lambda _: "!!!!",
    "bad padding": lambda _: "eyJiZWZvcmUiOiAzf",
    "another query's": lambda active_token: active_token,
}


@pytest.mark.parametrize("forge", _FORGED.values(), ids=_FORGED.keys())
def test_a_forged_page_token_is_invalid_page_token(
    serve: Callable[..., None], client_tools: Any, tmp_path: Path, forge: Callable[[str], str]
) -> None:
    async def scenario(client: Any) -> None:
        for seed in (1, 2):
            await client.create(seed=seed)
        active = await client.stub.ListMatches(
            match_service_pb2.ListMatchesRequest(page_size=1, state=match_pb2.Match.STATE_ACTIVE)
        )
        assert active.next_page_token
        forged = match_service_pb2.ListMatchesRequest(page_token=forge(active.next_page_token))
        failure = await client.failure(client.stub.ListMatches(forged))
        assert (failure.code, failure.reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_PAGE_TOKEN",
        )
        await client.still_serving()

    store = SqliteStore(tmp_path / "botarena.db")  # the sqlite query is where it overflowed
    try:
        serve(scenario, store=store)
    finally:
        store.close()
