"""Pages of the match list: ListMatches' page tokens and pages, shared by the web UI.

A page token is the urlsafe base64 of ``{"before": N, "filters": [...]}``: it goes on
before position ``N`` of the query with those filters and is refused for any other
query, so a token cannot be moved from one filter to another. The web UI's pages of a
leaderboard use the same form (their position: the rank a page goes on after).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable
from typing import Any

from botarena.server.match import InvalidRequestError, Match, MatchManager
from botarena.server.service._convert import ABANDONED, encode_summary
from botarena.server.store import StoredMatch
from botarena.v1 import match_pb2

__all__ = ["MAX_POSITION", "decode_page_token", "encode_page_token", "match_nodes", "match_page"]

MAX_POSITION = 2**63 - 1
"""The largest position a token holds (a sequence number: a positive SQLite INTEGER)."""


def encode_page_token(before: int, filters: list[Any]) -> str:
    """The token of the page that goes on before ``before`` in the query ``filters``."""
    raw = json.dumps({"before": before, "filters": filters}).encode()
    return base64.urlsafe_b64encode(raw).decode()


def decode_page_token(token: str, filters: list[Any]) -> int | None:
    """Return the position a page token of this query continues before (``None`` for
    no token: the first page).

    Raises:
        InvalidRequestError: ``INVALID_PAGE_TOKEN``: not a token this server made for a
            query with ``filters`` (malformed, forged, or another query's).
    """
    if not token:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(token.encode()))
        before = data["before"]
        if data["filters"] != filters:
            raise ValueError("another query")
        # bool is an int.
        if type(before) is not int or not 0 < before <= MAX_POSITION:
            raise ValueError("not a position")
    except (ValueError, KeyError, TypeError, IndexError, RecursionError, binascii.Error):
        raise InvalidRequestError(
            "page_token", "not a token of this query", reason="INVALID_PAGE_TOKEN"
        ) from None
    return before


def match_page(
    manager: MatchManager, *, game: str, state: int, page_token: str, size: int
) -> tuple[list[match_pb2.Match], str]:
    """One page of matches, newest first, as ListMatches serves it.

    Args:
        manager: The matches.
        game: Only this game (a registry name); empty for every game.
        state: A ``Match.State`` (0: any); ``STATE_FINISHED`` includes the abandoned
            matches (match.proto: Match.State).
        page_token: The previous page's ``next_page_token``; empty for the first page.
        size: Matches on the page at most.

    Returns:
        The matches as GetMatch shows them, and the next page's token (empty on the
        last page).

    Raises:
        InvalidRequestError: ``INVALID_PAGE_TOKEN``: a token of another query.
    """
    filters = [game, state]
    before = decode_page_token(page_token, filters)
    finished = None if not state else state != match_pb2.Match.STATE_ACTIVE
    end_reason = ABANDONED if state == match_pb2.Match.STATE_ABANDONED else ""
    found = manager.list_matches(
        game=game,
        finished=finished,
        end_reason=end_reason,
        before_sequence=before,
        limit=size + 1,
    )
    nodes = match_nodes(manager, (match for _, match in found[:size]))
    matches = []
    for _, match in found[:size]:
        summary = match_pb2.Match()
        if encode_summary(match, summary):
            summary.node = nodes.get(match.match_id, "")
            matches.append(summary)
    next_token = encode_page_token(found[size - 1][0], filters) if len(found) > size else ""
    return matches, next_token


def match_nodes(manager: MatchManager, matches: Iterable[Match | StoredMatch]) -> dict[str, str]:
    """With several nodes, the node that runs each unfinished match of ``matches``
    (match.proto: Match.node): this one for those it holds, the lease's for others."""
    lease, store = manager.lease, manager.store
    if lease is None or store is None:
        return {}
    nodes: dict[str, str] = {}
    others: list[str] = []
    for match in matches:
        if isinstance(match, Match) and not match.finished:
            nodes[match.match_id] = lease.address
        elif isinstance(match, StoredMatch) and not match.finished:
            others.append(match.match_id)
    for match_id, holder in store.lease_holders(others).items():
        nodes[match_id] = holder.address
    return nodes
