# mypy: disable-error-code="import-untyped"
"""The SDK over TLS through real gRPC: a whole match, client certificates, and the one-line
errors of a wrong CA or a plaintext/TLS mismatch (certificates made by the ``tls_files``
fixture)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from botarena.bots import GreedyQwirkleBot, RandomBot
from botarena.clients import (
    AsyncMatchClient,
    Bot,
    MatchClient,
    ServerTarget,
    TlsError,
    UnavailableError,
    bot_main,
    run_bot,
    run_bot_async,
)
from botarena.clients.testing import start_server, start_server_async
from botarena.v1 import match_pb2

QWIRKLE = match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=7)


def _create(target: str) -> list[str]:
    with MatchClient(target=target) as client:
        created = client.create_match(QWIRKLE)
    return [seat.token for seat in created.seat_tokens]


def test_a_whole_match_plays_over_tls(tls_files: Any) -> None:
    async def main() -> list[match_pb2.MatchOutcome]:
        credentials = tls_files.server_credentials()
        async with start_server_async(credentials=credentials) as address:
            target = tls_files.target(address)
            async with AsyncMatchClient(target=target) as client:
                created = await client.create_match(QWIRKLE)
            bots: tuple[Bot, ...] = (GreedyQwirkleBot(), RandomBot())
            # Each seat opens its own channel from the target string, as a bot process does.
            return await asyncio.gather(
                *(
                    run_bot_async(bot, server=target, token=seat.token, seed=1)
                    for bot, seat in zip(bots, created.seat_tokens, strict=True)
                )
            )

    outcomes = asyncio.run(main())
    assert outcomes[0] == outcomes[1]
    assert outcomes[0].reason == "went_out"  # played to the end, not abandoned
    assert [result.seat for result in outcomes[0].results] == [0, 1]
    assert all(result.score > 0 and not result.forfeited for result in outcomes[0].results)


def test_a_plaintext_client_is_refused_by_a_tls_server(tls_files: Any) -> None:
    with (
        start_server(credentials=tls_files.server_credentials()) as address,
        pytest.raises(TlsError) as refused,
    ):
        _create(address)
    message = str(refused.value)
    assert "in plaintext: the server speaks TLS" in message
    assert f"botarena+tls://{address}" in message
    assert "\n" not in message
    assert not refused.value.retryable


def test_a_wrong_ca_fails_with_a_clear_error(tls_files: Any) -> None:
    with (
        start_server(credentials=tls_files.server_credentials()) as address,
        pytest.raises(TlsError) as refused,
    ):
        _create(tls_files.target(address, ca=tls_files.other_ca))
    message = str(refused.value)
    assert f"not signed by the CA in {tls_files.other_ca}" in message
    assert "wrong CA?" in message
    assert "\n" not in message


def test_a_certificate_that_does_not_name_the_host_is_named_as_the_cause(
    tls_files: Any,
) -> None:
    # The certificate names 127.0.0.1 and localhost; the channel checks another name.
    elsewhere = [("grpc.ssl_target_name_override", "elsewhere.example")]
    with (
        start_server(credentials=tls_files.server_credentials()) as address,
        MatchClient(target=tls_files.target(address), channel_options=elsewhere) as client,
        pytest.raises(TlsError, match="the server's certificate does not name this host"),
    ):
        client.create_match(QWIRKLE)


def test_a_tls_client_of_a_plaintext_server_is_told_the_server_is_plaintext(
    tls_files: Any,
) -> None:
    with (
        start_server() as address,
        pytest.raises(TlsError, match="the server speaks plaintext gRPC"),
    ):
        _create(tls_files.target(address))


def test_a_plaintext_client_of_a_stopped_server_gets_no_tls_diagnosis() -> None:
    with start_server() as address:
        pass
    with pytest.raises(UnavailableError) as unreachable:
        _create(address)
    assert not isinstance(unreachable.value, TlsError)


def test_a_server_requiring_client_certificates_admits_only_those_its_ca_signed(
    tls_files: Any,
) -> None:
    credentials = tls_files.server_credentials(require_client_certificates=True)
    with start_server(credentials=credentials) as address:
        certified = ServerTarget.parse(tls_files.target(address)).with_tls(
            cert_file=tls_files.client_cert, key_file=tls_files.client_key
        )
        assert len(_create(str(certified))) == 2
        with pytest.raises(UnavailableError) as refused:
            _create(tls_files.target(address))
    # Still retryable (a server going away looks the same), but it says what it may be.
    assert not isinstance(refused.value, TlsError)
    assert "requires client certificates" in str(refused.value)
    assert "--tls-cert" in str(refused.value)


def test_run_bot_gives_up_at_once_on_a_wrong_ca(tls_files: Any) -> None:
    with start_server(credentials=tls_files.server_credentials()) as address:
        tokens = _create(tls_files.target(address))
        started = time.monotonic()
        with pytest.raises(TlsError):
            run_bot(
                RandomBot(),
                server=tls_files.target(address, ca=tls_files.other_ca),
                token=tokens[0],
            )
    # Not the reconnect policy's minute: no retry mends a certificate.
    assert time.monotonic() - started < 10


def test_bot_main_plays_over_tls_with_the_tls_flags(tls_files: Any) -> None:
    with (
        start_server(credentials=tls_files.server_credentials()) as address,
        ThreadPoolExecutor(2) as pool,
    ):
        tokens = _create(tls_files.target(address))
        opponent = pool.submit(
            run_bot, RandomBot(), server=tls_files.target(address), token=tokens[1]
        )
        arguments = ["--server", address, "--tls", "--tls-ca", tls_files.ca, "--token", tokens[0]]
        status = pool.submit(bot_main, RandomBot, arguments).result(timeout=60)
        outcome = opponent.result(timeout=60)
    assert status == 0
    assert outcome.reason == "went_out"


def test_a_bot_command_with_a_wrong_ca_exits_1_with_one_line(tls_files: Any) -> None:
    with start_server(credentials=tls_files.server_credentials()) as address:
        tokens = _create(tls_files.target(address))
        wrong_ca = tls_files.target(address, ca=tls_files.other_ca)
        bot = subprocess.run(
            [
                sys.executable,
                "-m",
                "botarena.bots.random",
                "--server",
                wrong_ca,
                "--token",
                tokens[0],
            ],
            capture_output=True,
            text=True,
            timeout=60,
            # As a user's shell starts it: grpc's own logging at its defaults.
            env={name: value for name, value in os.environ.items() if name != "GRPC_VERBOSITY"},
        )
    assert bot.returncode == 1
    lines = bot.stderr.strip().splitlines()
    assert len(lines) == 1, bot.stderr
    assert "cannot play the seat on botarena+tls://" in lines[0]
    assert "not signed by the CA in" in lines[0]


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        (["--server", "127.0.0.1:1", "--tls-ca", "/no/such/ca.pem"], "cannot read the CA file"),
        (["--server", "https://127.0.0.1:1"], "unknown server form"),
        (["--server", "127.0.0.1:1", "--tls-cert", "x.pem"], "needs both cert and key"),
    ],
    ids=["missing-ca", "unknown-scheme", "cert-without-key"],
)
def test_bot_main_refuses_bad_server_arguments_in_one_line(
    arguments: list[str], problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        bot_main(RandomBot, [*arguments, "--token", "t"])
    assert exited.value.code == 2
    assert problem in capsys.readouterr().err
