"""``ServerTarget``: the one string that names a server for every client entry point, and
the ``--server`` / ``--tls*`` flags that build it."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from botarena.clients import ServerTarget
from botarena.clients._target import add_server_arguments, server_target, server_targets


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:50051", ServerTarget("127.0.0.1:50051")),
        ("[::1]:50051", ServerTarget("[::1]:50051")),
        ("dns:///ladder.example:443", ServerTarget("dns:///ladder.example:443")),
        ("botarena+tls://ladder.example:443", ServerTarget("ladder.example:443", tls=True)),
        (
            "botarena+tls://[::1]:50051?ca=/etc/botarena/ca.pem",
            ServerTarget("[::1]:50051", tls=True, ca_file="/etc/botarena/ca.pem"),
        ),
        (
            "botarena+tls://h:1?ca=ca.pem&cert=bot.pem&key=bot.key",
            ServerTarget(
                "h:1", tls=True, ca_file="ca.pem", cert_file="bot.pem", key_file="bot.key"
            ),
        ),
        (
            "botarena+tls://h:1?ca=/my%20certs/ca.pem",
            ServerTarget("h:1", tls=True, ca_file="/my certs/ca.pem"),
        ),
    ],
    ids=["ipv4", "ipv6", "grpc-scheme", "tls", "tls-ca-ipv6", "client-certificate", "quoted"],
)
def test_parse_reads_each_form(text: str, expected: ServerTarget) -> None:
    assert ServerTarget.parse(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "127.0.0.1:50051",
        "botarena+tls://ladder.example:443",
        "botarena+tls://h:1?ca=/tmp/x/ca.pem&cert=/tmp/x/bot.pem&key=/tmp/x/bot.key",
        "botarena+tls://h:1?ca=/my%20certs/ca.pem",
    ],
    ids=["plaintext", "tls", "all-files", "quoted"],
)
def test_the_one_string_form_reads_back_unchanged(text: str) -> None:
    # The match runner hands a bot command str(target): it must be the string it was given.
    assert str(ServerTarget.parse(text)) == text


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("https://h:1", "unknown server form"),
        ("botarena+tls://", "address is empty"),
        ("botarena+tls://h:1/path", "no path"),
        ("botarena+tls://h:1?root=ca.pem", "unknown option 'root'"),
        ("botarena+tls://h:1?ca=a.pem&ca=b.pem", "give ca=PATH once"),
        ("botarena+tls://h:1?cert=bot.pem", "needs both cert and key"),
    ],
    ids=["unknown-scheme", "no-address", "path", "unknown-option", "twice", "cert-without-key"],
)
def test_parse_refuses_what_is_not_a_target(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        ServerTarget.parse(text)


def test_a_plaintext_target_takes_no_tls_files() -> None:
    with pytest.raises(ValueError, match="needs TLS"):
        ServerTarget("h:1", ca_file="ca.pem")


def test_with_tls_keeps_the_files_it_is_not_given() -> None:
    target = ServerTarget.parse("botarena+tls://h:1?ca=ca.pem").with_tls(
        cert_file="bot.pem", key_file="bot.key"
    )
    assert str(target) == "botarena+tls://h:1?ca=ca.pem&cert=bot.pem&key=bot.key"


def _flags(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_server_arguments(parser, default=None, help_text="the server")
    return parser.parse_args(argv)


def test_the_tls_flags_turn_a_host_and_port_into_a_tls_target(tls_files: Any) -> None:
    target = server_target(_flags("--server", "h:1", "--tls-ca", tls_files.ca))
    assert target == ServerTarget("h:1", tls=True, ca_file=tls_files.ca)
    assert server_target(_flags("--server", "h:1", "--tls")) == ServerTarget("h:1", tls=True)
    assert server_target(_flags("--server", "h:1")) == ServerTarget("h:1")
    assert server_target(_flags()) is None


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--tls"], "the TLS flags need --server"),
        (["--server", "h:1", "--tls-ca", "/no/such.pem"], "cannot read the CA file /no/such.pem"),
        (["--server", "h:1", "--tls-ca", "KEY"], "holds no PEM CERTIFICATE"),
    ],
    ids=["no-server", "missing-file", "not-a-certificate"],
)
def test_server_target_refuses_flags_and_files_it_cannot_use(
    argv: list[str], problem: str, tls_files: Any
) -> None:
    argv = [tls_files.server_key if item == "KEY" else item for item in argv]
    with pytest.raises(ValueError, match=problem):
        server_target(_flags(*argv))


def test_a_repeatable_server_flag_replaces_its_default_and_gives_each_the_tls_flags(
    tls_files: Any,
) -> None:
    parser = argparse.ArgumentParser()
    add_server_arguments(parser, default="d:1", help_text="the servers", several=True)
    assert server_targets(parser.parse_args([])) == [ServerTarget("d:1")]
    given = parser.parse_args(["--server", "a:1", "--server", "b:2", "--tls-ca", tls_files.ca])
    assert server_targets(given) == [
        ServerTarget("a:1", tls=True, ca_file=tls_files.ca),
        ServerTarget("b:2", tls=True, ca_file=tls_files.ca),
    ]
    assert server_target(given) == ServerTarget("a:1", tls=True, ca_file=tls_files.ca)
