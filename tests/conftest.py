# mypy: disable-error-code="import-untyped"
"""Fixtures shared by several test folders."""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import json
import os
import pty
import select
import shutil
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

# The server's start-up: registers every game of the registry (PLUGINS) with its layers.
import botarena.server.service  # noqa: F401
from botarena.clients.testing import ServerProcess, free_port
from botarena.server.store.local_postgres import (
    ENV_TEST_POSTGRES_URL,
    LocalPostgres,
    PostgresNotFoundError,
    local_postgres,
    running_postgres,
    scratch_database,
)

_SHIPPED_BUILDINGS = (
    Path(__file__).parents[1] / "server/botarena/server/games/queendomino/data/buildings.json"
)


class OperatorTable(NamedTuple):
    """An operator's Queendomino building table on disk, and the values of every tile."""

    path: Path
    crowns: int
    knights: int
    towers: int


@pytest.fixture
def queendomino_operator_table(tmp_path: Path) -> OperatorTable:
    """The shipped ``buildings.json`` with every tile's crowns, knights and towers changed
    to values no shipped tile has all at once (README: Queendomino, stand-in values)."""
    table = OperatorTable(tmp_path / "my-buildings.json", crowns=3, knights=2, towers=1)
    document = json.loads(_SHIPPED_BUILDINGS.read_text(encoding="utf-8"))
    for tile in document["tiles"]:
        tile.update(crowns=table.crowns, knights=table.knights, towers=table.towers)
    table.path.write_text(json.dumps(document), encoding="utf-8")
    return table


class TlsFiles(NamedTuple):
    """A throwaway CA, a server certificate it signed for 127.0.0.1 and localhost, a client
    certificate it signed, and a second CA that signed nothing of these (PEM paths)."""

    ca: str
    server_cert: str
    server_key: str
    client_cert: str
    client_key: str
    other_ca: str

    def server_credentials(self, *, require_client_certificates: bool = False) -> object:
        """The ``grpc.ServerCredentials`` of the server certificate (``create_server``)."""
        ca = Path(self.ca).read_bytes()
        pair = (Path(self.server_key).read_bytes(), Path(self.server_cert).read_bytes())
        return grpc.ssl_server_credentials(
            [pair],
            root_certificates=ca if require_client_certificates else None,
            require_client_auth=require_client_certificates,
        )

    def target(self, address: str, *, ca: str | None = None) -> str:
        """The TLS form of ``address`` that trusts ``ca`` (default: this CA)."""
        return f"botarena+tls://{address}?ca={ca or self.ca}"


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _certificate(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[x509.Name, ec.EllipticCurvePrivateKey] | None,
    extensions: list[tuple[x509.ExtensionType, bool]],
) -> x509.Certificate:
    """A certificate valid for a day; self-signed without an ``issuer``."""
    now = datetime.datetime.now(datetime.UTC)
    issuer_name, issuer_key = issuer or (_name(subject), key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
    )
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    return builder.sign(issuer_key, hashes.SHA256())


def _write(folder: Path, name: str, item: x509.Certificate | ec.EllipticCurvePrivateKey) -> str:
    path = folder / name
    if isinstance(item, x509.Certificate):
        path.write_bytes(item.public_bytes(serialization.Encoding.PEM))
    else:
        path.write_bytes(
            item.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
    return str(path)


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    """Certificates made for this test session (``cryptography``), never a shipped one."""
    folder = tmp_path_factory.mktemp("tls")
    ca_constraints = (x509.BasicConstraints(ca=True, path_length=None), True)
    ca_key, other_key = (
        ec.generate_private_key(ec.SECP256R1()),
        ec.generate_private_key(ec.SECP256R1()),
    )
    ca = _certificate("botarena test CA", ca_key, None, [ca_constraints])
    other_ca = _certificate("another test CA", other_key, None, [ca_constraints])
    names = x509.SubjectAlternativeName(
        [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    )
    server_key, client_key = (
        ec.generate_private_key(ec.SECP256R1()),
        ec.generate_private_key(ec.SECP256R1()),
    )
    server = _certificate(
        "botarena test server", server_key, (ca.subject, ca_key), [(names, False)]
    )
    client = _certificate("botarena test bot", client_key, (ca.subject, ca_key), [])
    return TlsFiles(
        ca=_write(folder, "ca.pem", ca),
        server_cert=_write(folder, "server.pem", server),
        server_key=_write(folder, "server.key", server_key),
        client_cert=_write(folder, "client.pem", client),
        client_key=_write(folder, "client.key", client_key),
        other_ca=_write(folder, "other-ca.pem", other_ca),
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-playthroughs",
        action="store_true",
        help="rewrite tests/games/playthroughs/ from fresh seeded games (review the diff)",
    )


T = TypeVar("T")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of a real PostgreSQL server for this test session.

    ``BOTARENA_TEST_POSTGRES_URL`` names an existing server; otherwise one is started on
    127.0.0.1 in a temporary data directory (``local_postgres``: the ``pgserver`` wheel of
    the dev extras bundles it) and stopped at the end. Without either the tests that need
    it are skipped with the reason, except under CI, where that fails them.
    """
    configured = os.environ.get(ENV_TEST_POSTGRES_URL)
    if configured:
        yield configured
        return
    # Not under pytest's basetemp: every pytest session that starts (another checkout's
    # too) makes /tmp/pytest-of-USER mode 0700 again, and the server, which runs as its
    # own user under root, then cannot reach its data directory (PANIC: could not open
    # pg_control: Permission denied).
    yield from started_postgres(local_postgres())


@pytest.fixture(scope="module")
def restartable_postgres() -> Iterator[LocalPostgres]:
    """A PostgreSQL server of the test module's own, which its tests stop and start."""
    yield from started_postgres(running_postgres())


def started_postgres(server: contextlib.AbstractContextManager[T]) -> Iterator[T]:
    """Enter ``server`` (``local_postgres()``, ``running_postgres()``) for a fixture and
    yield what it gives; without PostgreSQL skip the test with the reason, except under
    CI, where that fails it."""
    try:
        started = server.__enter__()
    except PostgresNotFoundError as error:
        if os.environ.get("CI"):
            pytest.fail(f"{error} - CI must have it")
        pytest.skip(str(error))
    try:
        yield started
    finally:
        server.__exit__(None, None, None)


# ---------------------------------------------------------------------- the browser
# Headless Chromium for the browser tests of tests/viewers and tests/web.

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
"""Where the browser tests (tests/viewers, tests/web) leave their screenshots (gitignored)."""

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 800}


def chromium_path() -> str | None:
    """The system Chromium: ``$BOTARENA_CHROMIUM``, else ``chromium`` on the PATH."""
    configured = os.environ.get("BOTARENA_CHROMIUM")
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("chromium")


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A headless Chromium with a fresh profile, for one test module.

    Not for the whole session: Playwright's sync API keeps an event loop running in this
    thread while it is open, and every later ``asyncio.run`` (tests of other folders run
    after this one in any order pytest picks) would fail.
    """
    executable = chromium_path()
    if executable is None:
        message = (
            "Chromium is not installed: the HTML viewer's browser tests need Debian's "
            "`chromium` (make test installs it as root; else `sudo apt-get install chromium`)"
        )
        if os.environ.get("CI"):
            pytest.fail(message + " - CI must have it")
        pytest.skip(message)
    sync_api = pytest.importorskip("playwright.sync_api")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=executable,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport=VIEWPORT,
        )
        try:
            yield context
        finally:
            context.close()


class Page:
    """One browser tab on a viewer page; it fails the test on any console error."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on(
            "console",
            lambda message: self.errors.append(message.text) if message.type == "error" else None,
        )
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def open(self, path: Path, fragment: str = "") -> Any:
        """Open ``path`` from ``file://`` and wait for the viewer to be drawn."""
        self.page.goto(path.resolve().as_uri() + fragment)
        self.page.wait_for_selector("#botarena-viewer[data-ready]")
        assert self.page.get_attribute("#botarena-viewer", "data-ready") == "true", self.errors
        return self.page

    def version(self) -> int:
        """The version the viewer shows."""
        return int(self.page.get_attribute("#botarena-viewer", "data-version"))

    def count(self, selector: str) -> int:
        """How many elements match ``selector``."""
        return int(self.page.locator(selector).count())

    def screenshot(self, name: str) -> Path:
        """Save a screenshot under test-artifacts/ and return its path."""
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / name
        self.page.screenshot(path=str(path))
        return path


@pytest.fixture
def tab(browser_context: Any) -> Iterator[Page]:
    """A new tab; at the end the test fails if the page logged an error."""
    page = Page(browser_context.new_page())
    yield page
    errors = list(page.errors)
    page.page.close()
    assert errors == [], f"console errors: {errors}"


@pytest.fixture
def postgres_database(postgres_url: str) -> Iterator[str]:
    """The URL of an empty PostgreSQL database of its own for this test."""
    with scratch_database(postgres_url, "botarena") as url:
        yield url


@contextlib.contextmanager
def _two_started_nodes(
    url: str, folder: Path, lease_seconds: float
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    nodes = []
    for number in range(2):
        port = free_port()
        options = ["--advertise", f"127.0.0.1:{port}", "--lease-seconds", str(lease_seconds)]
        log = folder / f"node-{number}.log"
        nodes.append(ServerProcess(url, options=options, log_path=log, port=port))
    try:
        for node in nodes:
            node.start()
        yield nodes[0], nodes[1]
    finally:
        for node in nodes:
            node.kill()


@pytest.fixture
def two_nodes(
    postgres_database: str, tmp_path: Path
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two started ``botarena serve`` nodes on one empty PostgreSQL database, each with
    ``--advertise 127.0.0.1:PORT`` and 2 s leases (their logs: ``node-0.log``,
    ``node-1.log`` in ``tmp_path``)."""
    with _two_started_nodes(postgres_database, tmp_path, 2.0) as nodes:
        yield nodes


@pytest.fixture
def two_slow_nodes(
    postgres_database: str, tmp_path: Path
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """``two_nodes`` with 60 s leases: none expires while a test runs."""
    with _two_started_nodes(postgres_database, tmp_path, 60.0) as nodes:
        yield nodes


PtyRun = Callable[[Sequence[str], Mapping[str, str]], tuple[int, bytes]]
"""Runs a command with a pty as its terminal (stdout and stderr) and the environment
given (added to this one); returns its exit status and every byte it wrote there."""


@pytest.fixture
def on_a_pty() -> PtyRun:
    """Run commands on a real terminal (``pty.openpty``): what a user's terminal would
    get. Standard input is empty, not the terminal (nothing waits for keys)."""

    def run(command: Sequence[str], environment: Mapping[str, str]) -> tuple[int, bytes]:
        main, child = pty.openpty()
        with subprocess.Popen(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=child,
            stderr=child,
            env={**os.environ, **environment},
        ) as process:
            os.close(child)
            output = bytearray()
            while True:
                ready, _, _ = select.select([main], [], [], 60)
                assert ready, "the command wrote nothing for 60 s"
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # EIO: the child closed its side
                    break
                if not chunk:
                    break
                output += chunk
            status = process.wait(timeout=60)
        os.close(main)
        return status, bytes(output)

    return run
