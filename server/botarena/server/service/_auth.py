"""Reading credentials from call metadata (``authorization: Bearer <token>``)."""

from __future__ import annotations

import hmac
from typing import Any

from botarena.server.match import MatchError, SeatTokenInvalidError, SeatTokenRequiredError

__all__ = ["bearer_token", "require_admin"]

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


def require_admin(context: Any, admin_token: str | None, action: str) -> None:
    """Check that the call carries the server's admin token, when the server has one.

    Args:
        context: The call's context.
        admin_token: The server's admin token; ``None`` lets every call through.
        action: What the token is needed for, for the error message ("creating matches").

    Raises:
        SeatTokenRequiredError: ``ADMIN_TOKEN_REQUIRED``.
    """
    if admin_token is None:
        return
    try:
        token = bearer_token(context)
    except MatchError:  # a malformed header is no admin token either
        token = None
    if token is None or not hmac.compare_digest(token.encode(), admin_token.encode()):
        raise SeatTokenRequiredError(
            "ADMIN_TOKEN_REQUIRED", f"{action} needs the server's admin token"
        )
