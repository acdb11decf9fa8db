"""Seat tokens (``_tokens``): fresh, hashed, and matched to their seat."""

from __future__ import annotations

import hashlib

from botarena.server.match._tokens import hash_token, new_token, seat_of


def test_a_token_names_its_match_and_is_fresh_each_time() -> None:
    first, second = new_token("m1"), new_token("m1")
    assert first.startswith("m1.")
    assert first != second
    assert len(first.removeprefix("m1.")) == 32  # 24 random bytes, base64url


def test_the_hash_of_a_token_is_its_sha256_hex() -> None:
    assert hash_token("tok") == hashlib.sha256(b"tok").hexdigest()


def test_a_token_finds_its_seat_by_hash() -> None:
    hashes = [bytes.fromhex(hash_token(token)) for token in ("tok-0", "tok-1", "tok-2")]
    assert [seat_of(token, hashes) for token in ("tok-0", "tok-1", "tok-2")] == [0, 1, 2]


def test_an_unknown_token_finds_no_seat() -> None:
    assert seat_of("tok-9", [bytes.fromhex(hash_token("tok-0"))]) is None
