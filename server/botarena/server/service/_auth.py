"""Reading credentials from call metadata (``authorization: Bearer <token>``)."""

from __future__ import annotations

from typing import Any

from botarena.server.match import SeatTokenInvalidError

__all__ = ["bearer_token"]

_SCHEME = "bearer "
_MAX_TOKEN_LENGTH = 256


def bearer_token(context: Any) -> str | None:
    """Return the bearer token of the call, or ``None`` when it sends no credentials.

    Raises:
        SeatTokenInvalidError: An ``authorization`` entry that is not a bearer token.
    """
    for key, value in context.invocation_metadata() or ():
        if key.lower() != "authorization":
            continue
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
        if not text.lower().startswith(_SCHEME):
            raise SeatTokenInvalidError()
        token = text[len(_SCHEME) :].strip()
        if not token or len(token) > _MAX_TOKEN_LENGTH:
            raise SeatTokenInvalidError()
        return token
    return None
