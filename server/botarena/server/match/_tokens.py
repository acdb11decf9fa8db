"""Seat tokens: how they are made, what the match keeps of them, and how a call's token
finds its seat."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

from botarena.server.games import Seat

__all__ = ["hash_token", "new_token", "seat_of"]


def new_token(match_id: str) -> str:
    """Return a fresh secret token of a seat of ``match_id``."""
    # A token names its match ("{match_id}.{secret}"), so a bot needs only the server and
    # its token (docs/bots.md); the secret part is what authenticates.
    return f"{match_id}.{secrets.token_urlsafe(24)}"


def hash_token(token: str) -> str:
    """Return the SHA-256 of a seat token, hex: what the match keeps and the store stores.

    Tokens carry 192 random bits, so a plain hash (no salt, no key stretching) is enough.
    """
    return hashlib.sha256(token.encode()).hexdigest()


def seat_of(token: str, token_hashes: Sequence[bytes]) -> Seat | None:
    """Return the seat whose token hash (raw bytes, by seat) is ``token``'s, or ``None``."""
    found: Seat | None = None
    digest = hashlib.sha256(token.encode()).digest()
    # Compare against every seat in constant time per token: no timing oracle.
    for seat, token_hash in enumerate(token_hashes):
        if hmac.compare_digest(token_hash, digest):
            found = seat
    return found
