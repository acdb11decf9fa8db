"""Small pieces both clients share: call metadata, request ids and defaults."""

from __future__ import annotations

import uuid

__all__ = ["DEFAULT_TIMEOUT", "bearer_metadata", "new_request_id"]

DEFAULT_TIMEOUT = 30.0
"""Seconds a unary call may take before it fails with DEADLINE_EXCEEDED."""


def bearer_metadata(token: str | None) -> tuple[tuple[str, str], ...] | None:
    """Return the call metadata that carries ``token`` (``None``: no credentials)."""
    return None if not token else (("authorization", f"Bearer {token}"),)


def new_request_id() -> str:
    """Return a fresh idempotency key (32 hex characters; the server allows 64)."""
    return uuid.uuid4().hex
