# mypy: disable-error-code="import-untyped"
"""``botarena serve`` runs a real server process and stops gracefully on a signal."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import urllib.request
from importlib import resources
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from .conftest import ipv6_loopback

_START = "from botarena.clients.cli import main; raise SystemExit(main())"


def _popen(data_home: Path, env: dict[str, str] | None = None, *args: str) -> subprocess.Popen[str]:
    # The default database goes under $XDG_DATA_HOME: a temporary folder, never the user's.
    return subprocess.Popen(
        [sys.executable, "-c", _START, "serve", "--port", "0", "--log-format", "json", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "XDG_DATA_HOME": str(data_home), **(env or {})},
    )


def _until_serving(
    process: subprocess.Popen[str], before: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Return the "serving" log entry; the entries logged before it go to ``before``."""
    assert process.stdout is not None
    seen: list[str] = []
    for line in process.stdout:
        seen.append(line)
        if not line.startswith("{"):
            continue
        entry = json.loads(line)
        if entry.get("event") == "serving":
            return dict(entry)
        if before is not None:
            before.append(entry)
    raise AssertionError("the server did not start:\n" + "".join(seen))


async def _health(port: int) -> int:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        return int(reply.status)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_serve_answers_health_checks_and_stops_on_a_signal(
    signum: signal.Signals, tmp_path: Path
) -> None:
    with _popen(tmp_path) as process:
        try:
            serving = _until_serving(process)
            assert serving["admin_token_required"] is False
            # Without --db the matches go to a file under the user's data folder.
            assert serving["database"] == str(tmp_path / "botarena" / "botarena.db")
            assert (tmp_path / "botarena" / "botarena.db").exists()
            status = asyncio.run(_health(int(serving["port"])))
            assert status == health_pb2.HealthCheckResponse.SERVING
            process.send_signal(signum)
            rest, _ = process.communicate(timeout=10)
        finally:
            process.kill()
    assert process.returncode == 0
    events = [json.loads(line)["event"] for line in rest.splitlines()]
    assert events[-2:] == ["stopping", "stopped"]


def test_serve_takes_the_admin_token_from_the_environment(tmp_path: Path) -> None:
    with _popen(tmp_path, {"BOTARENA_ADMIN_TOKEN": "from-env"}) as process:
        try:
            assert _until_serving(process)["admin_token_required"] is True
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=10)
        finally:
            process.kill()
    assert process.returncode == 0


def test_serve_takes_its_admission_limits_from_flags_and_the_environment(tmp_path: Path) -> None:
    env = {
        "BOTARENA_MAX_ACTIVE_MATCHES": "40",
        "BOTARENA_MAX_CREATES_PER_MINUTE": "0",
        "BOTARENA_CALL_BUDGET": "250",
    }
    flags = ("--max-matches-per-caller", "7", "--play-budget", "900", "--reserved-matches", "4")
    with _popen(tmp_path, env, *flags) as process:
        try:
            serving = _until_serving(process)
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=10)
        finally:
            process.kill()
    limits = (
        "max_active_matches",
        "max_matches_per_caller",
        "max_creates_per_minute",
        "reserved_matches",
        "call_budget",
        "play_budget",
        "max_registrations_per_hour",
    )
    assert [serving[limit] for limit in limits] == [40, 7, 0, 4, 250, 900, 120]


@pytest.mark.parametrize(
    ("env", "args", "problem"),
    [
        ({"BOTARENA_MAX_MATCHES_PER_CALLER": "many"}, [], "not a whole number: 'many'"),
        ({}, ["--max-active-matches", "0"], "must be at least 1, not 0"),
        ({}, ["--max-creates-per-minute", "-1"], "must be at least 0, not -1"),
    ],
    ids=["env-not-a-number", "no-active-matches", "negative-rate"],
)
def test_serve_refuses_bad_admission_limits(
    env: dict[str, str],
    args: list[str],
    problem: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from botarena.clients.cli import main

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as exited:
        main(["serve", *args])
    assert exited.value.code == 2
    assert problem in capsys.readouterr().err


def test_serve_refuses_a_reserve_of_every_match(capsys: pytest.CaptureFixture[str]) -> None:
    from botarena.clients.cli import main

    assert main(["serve", "--max-active-matches", "40", "--reserved-matches", "40"]) == 2
    assert "--reserved-matches 40 must be below --max-active-matches 40" in capsys.readouterr().err


def test_serve_help_shows_the_admission_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    from botarena.clients.cli import main
    from botarena.server.match import (
        DEFAULT_CALL_BUDGET,
        DEFAULT_MAX_ACTIVE_MATCHES,
        DEFAULT_MAX_CREATES_PER_MINUTE,
        DEFAULT_MAX_MATCHES_PER_CALLER,
        DEFAULT_MAX_REGISTRATIONS_PER_HOUR,
        DEFAULT_PLAY_BUDGET,
    )

    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag, default in [
        ("--max-active-matches", DEFAULT_MAX_ACTIVE_MATCHES),
        ("--max-matches-per-caller", DEFAULT_MAX_MATCHES_PER_CALLER),
        ("--max-creates-per-minute", DEFAULT_MAX_CREATES_PER_MINUTE),
        ("--call-budget", DEFAULT_CALL_BUDGET),
        ("--play-budget", DEFAULT_PLAY_BUDGET),
        ("--max-registrations-per-hour", DEFAULT_MAX_REGISTRATIONS_PER_HOUR),
    ]:
        assert flag in text
        assert f"(default {default}, or $BOTARENA_{flag[2:].replace('-', '_').upper()})" in text


_STAND_INS = "queendomino buildings use stand-in values"


def _serve_until_serving(data_home: Path, *args: str) -> list[dict[str, Any]]:
    before: list[dict[str, Any]] = []
    with _popen(data_home, None, *args) as process:
        try:
            _until_serving(process, before)
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=10)
        finally:
            process.kill()
    assert process.returncode == 0
    return before


def test_serve_warns_once_about_the_shipped_buildings_stand_ins(tmp_path: Path) -> None:
    warnings = [entry for entry in _serve_until_serving(tmp_path) if entry["event"] == _STAND_INS]
    assert len(warnings) == 1
    assert warnings[0]["level"] == "warning"
    assert warnings[0]["source"] == "buildings.json"
    assert "The Queen's Tower (id 30) knights" in warnings[0]["defaulted"]


def test_serve_takes_a_corrected_building_table_without_a_warning(tmp_path: Path) -> None:
    shipped = resources.files("botarena.server.games.queendomino").joinpath(
        "data", "buildings.json"
    )
    document = json.loads(shipped.read_text("utf-8"))
    for tile in document["tiles"]:
        for field in ("knights", "towers"):
            tile[field] = 0 if tile[field] is None else tile[field]
        tile["ongoing_effect"] = tile["ongoing_effect"] or "none"
    corrected = tmp_path / "buildings.json"
    corrected.write_text(json.dumps(document), encoding="utf-8")
    before = _serve_until_serving(tmp_path, "--queendomino-buildings", str(corrected))
    assert _STAND_INS not in [entry["event"] for entry in before]


@pytest.mark.parametrize(
    ("content", "problem"),
    [(None, "cannot be read"), ("{", "not valid JSON"), ('{"tiles": []}', "expected 32 entries")],
    ids=["missing", "not-json", "wrong-count"],
)
def test_serve_refuses_a_bad_building_table(
    tmp_path: Path, content: str | None, problem: str
) -> None:
    path = tmp_path / "buildings.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with _popen(tmp_path, None, "--queendomino-buildings", str(path)) as process:
        output, _ = process.communicate(timeout=30)
    assert process.returncode == 2
    assert "botarena serve: --queendomino-buildings:" in output
    assert problem in output
    assert '"serving"' not in output


def test_serve_refuses_a_file_that_is_no_database(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database " * 100)
    command = [sys.executable, "-c", _START, "serve", "--port", "0", "--log-format", "json"]
    done = subprocess.run(
        [*command, "--db", str(notes)], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 1
    error = json.loads(done.stdout.splitlines()[-1])
    assert error["event"] == "cannot open the database"
    assert "notes.txt as a botarena database" in error["error"]


async def _tls_health(port: int, credentials: Any) -> int:
    async with grpc.aio.secure_channel(f"127.0.0.1:{port}", credentials) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=10
        )
        return int(reply.status)


def _serve_and_check(data_home: Path, *args: str, check: Any) -> list[dict[str, Any]]:
    """Start ``serve *args``, run ``check(port)`` once it serves, stop it; return the
    "serving" log entry, then the entries before it."""
    before: list[dict[str, Any]] = []
    with _popen(data_home, None, *args) as process:
        try:
            serving = _until_serving(process, before)
            check(int(serving["port"]))
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=10)
        finally:
            process.kill()
    assert process.returncode == 0
    return [serving, *before]


def test_serve_speaks_tls_with_a_certificate_and_key(tmp_path: Path, tls_files: Any) -> None:
    trusted = grpc.ssl_channel_credentials(Path(tls_files.ca).read_bytes())

    def check(port: int) -> None:
        assert asyncio.run(_tls_health(port, trusted)) == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as plaintext:
            asyncio.run(_health(port))
        assert plaintext.value.code() == grpc.StatusCode.UNAVAILABLE

    tls = ("--tls-cert", tls_files.server_cert, "--tls-key", tls_files.server_key)
    serving, *_ = _serve_and_check(tmp_path, *tls, check=check)
    assert (serving["tls"], serving["client_certificates_required"]) == (True, False)


def test_serve_with_a_client_ca_admits_only_clients_with_its_certificates(
    tmp_path: Path, tls_files: Any
) -> None:
    ca = Path(tls_files.ca).read_bytes()
    certified = grpc.ssl_channel_credentials(
        ca, Path(tls_files.client_key).read_bytes(), Path(tls_files.client_cert).read_bytes()
    )

    def check(port: int) -> None:
        assert asyncio.run(_tls_health(port, certified)) == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as anonymous:
            asyncio.run(_tls_health(port, grpc.ssl_channel_credentials(ca)))
        assert anonymous.value.code() == grpc.StatusCode.UNAVAILABLE

    tls = ("--tls-cert", tls_files.server_cert, "--tls-key", tls_files.server_key)
    serving, *_ = _serve_and_check(tmp_path, *tls, "--tls-client-ca", tls_files.ca, check=check)
    assert (serving["tls"], serving["client_certificates_required"]) == (True, True)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "ladder.example"])
def test_serve_refuses_plaintext_on_a_non_loopback_host_in_one_line(
    host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from botarena.clients.cli import main

    assert main(["serve", "--host", host, "--db", ":memory:"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert error.startswith(f"botarena serve: refusing to serve plaintext on {host}")
    assert "--tls-cert and --tls-key, or --insecure" in error


def test_serve_insecure_serves_plaintext_on_a_non_loopback_host(tmp_path: Path) -> None:
    def check(port: int) -> None:
        assert asyncio.run(_health(port)) == health_pb2.HealthCheckResponse.SERVING

    args = ("--host", "0.0.0.0", "--insecure", "--admin-token", "sesame")
    serving, *before = _serve_and_check(tmp_path, *args, check=check)
    assert (serving["host"], serving["tls"]) == ("0.0.0.0", False)
    events = [entry["event"] for entry in before if entry["level"] == "warning"]
    assert "serving plaintext beyond loopback (--insecure)" in events


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "[2001:db8::1]", "ladder.example"])
@pytest.mark.parametrize("transport", ["insecure", "tls"])
def test_serve_refuses_a_non_loopback_host_without_an_admin_token_before_binding(
    host: str, transport: str, tmp_path: Path, tls_files: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from botarena.clients.cli import main

    database = tmp_path / "never.db"
    secure = ["--insecure"] if transport == "insecure" else []
    if transport == "tls":
        secure = ["--tls-cert", tls_files.server_cert, "--tls-key", tls_files.server_key]
    args = ["serve", "--host", host, "--port", "0", "--db", str(database), *secure]
    assert main(args) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    shown = host.strip("[]")
    assert error.startswith(f"botarena serve: refusing to serve on {shown}, which is not a")
    assert "give --admin-token TOKEN" in error
    assert "or --open for a deliberately open server" in error
    assert not database.exists()  # refused before the database, let alone the port


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        (["--host", "0.0.0.0", "--insecure"], True),
        (["--host", "0.0.0.0", "--insecure", "--open"], False),
        (["--host", "0.0.0.0", "--insecure", "--admin-token", "T"], False),
        (["--host", "127.0.0.1"], False),
        (["--host", "[::1]"], False),
        (["--host", "localhost"], False),
    ],
    ids=["public", "open", "admin-token", "loopback", "ipv6-loopback", "localhost"],
)
def test_only_an_admin_token_or_open_lets_a_non_loopback_host_serve(
    args: list[str], refused: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rule alone, on parsed flags: a test never serves on a non-loopback address.
    from botarena.clients.cli import _parser, _require_admin_token

    monkeypatch.delenv("BOTARENA_ADMIN_TOKEN", raising=False)
    parsed = _parser().parse_args(["serve", *args])
    if refused:
        with pytest.raises(ValueError, match="--open"):
            _require_admin_token(parsed)
    else:
        _require_admin_token(parsed)


@pytest.mark.skipif(not ipv6_loopback(), reason="this machine has no IPv6 loopback")
@pytest.mark.parametrize("host", ["[::1]", "::1"])
def test_serve_binds_an_ipv6_loopback_host_given_with_or_without_brackets(
    host: str, tmp_path: Path
) -> None:
    async def health(port: int) -> int:
        async with grpc.aio.insecure_channel(f"[::1]:{port}") as channel:
            reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        return int(reply.status)

    args = ("--host", host, "--http-host", host, "--http-port", "0", "--db", ":memory:")
    with _popen(tmp_path, None, *args) as process:
        try:
            serving = _until_serving(process)
            status = asyncio.run(health(int(serving["port"])))
            with urllib.request.urlopen(serving["web_ui"], timeout=30) as page:
                web_status = page.status
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=10)
        finally:
            process.kill()
    assert process.returncode == 0
    assert status == health_pb2.HealthCheckResponse.SERVING
    assert serving["host"] == "::1"
    assert serving["web_ui"].startswith("http://[::1]:")
    assert web_status == 200


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("192.168.1.5", False),
        ("ladder.example", False),
    ],
)
def test_only_loopback_hosts_may_serve_plaintext_without_insecure(
    host: str, loopback: bool
) -> None:
    from botarena.clients.cli import _is_loopback

    assert _is_loopback(host) is loopback


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--tls-cert", "CERT"], "--tls-cert and --tls-key go together"),
        (["--tls-client-ca", "CA"], "--tls-client-ca needs --tls-cert and --tls-key"),
        (["--tls-cert", "/no/cert.pem", "--tls-key", "KEY"], "cannot read --tls-cert /no/cert"),
        (["--tls-cert", "KEY", "--tls-key", "KEY"], "holds no PEM CERTIFICATE"),
    ],
    ids=["cert-without-key", "client-ca-without-cert", "missing-file", "key-as-certificate"],
)
def test_serve_refuses_tls_flags_it_cannot_use_in_one_line(
    args: list[str], problem: str, tls_files: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from botarena.clients.cli import main

    files = {"CERT": tls_files.server_cert, "KEY": tls_files.server_key, "CA": tls_files.ca}
    assert main(["serve", "--db", ":memory:", *[files.get(arg, arg) for arg in args]]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert problem in error
