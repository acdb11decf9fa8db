"""The throwaway PostgreSQL server the tests and demos start is real and local."""

from __future__ import annotations

import psycopg


def test_the_test_server_answers_on_the_loopback_address(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as connection:
        row = connection.execute("select inet_server_addr()::text, version()").fetchone()
    assert row is not None
    address, version = row
    assert address is None or address.startswith("127.0.0.1"), address
    assert version.startswith("PostgreSQL ")
