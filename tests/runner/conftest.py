"""Fixtures of the runner's tests: ``run_cli`` runs ``botarena match`` in-process;
``queue_url`` is a database of its own for a test of the queue."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import pytest
from rich.console import Console

from botarena.bots import BUILTIN_BOTS
from botarena.clients.runner import BuiltinBot, add_match_arguments, run_match
from botarena.server.store.local_postgres import scratch_database


class RunCli(Protocol):
    """Runs ``botarena match *argv --out tmp_path/out --quiet``; returns the exit status,
    the terminal's text and results.json (empty when the run wrote none)."""

    def __call__(
        self, *argv: str, builtin: Mapping[str, BuiltinBot] = ..., out: str = ...
    ) -> tuple[int, str, dict[str, Any]]: ...


@pytest.fixture
def run_cli(tmp_path: Path) -> RunCli:
    def run(
        *argv: str, builtin: Mapping[str, BuiltinBot] = BUILTIN_BOTS, out: str = "run"
    ) -> tuple[int, str, dict[str, Any]]:
        parser = argparse.ArgumentParser()
        add_match_arguments(parser)
        folder = tmp_path / out
        args = parser.parse_args([*argv, "--out", str(folder), "--quiet"])
        console = Console(record=True, width=160, file=io.StringIO())
        status = run_match(args, builtin, console)
        results = folder / "results.json"
        document = json.loads(results.read_text()) if results.is_file() else {}
        return status, console.export_text(), document

    return run


@pytest.fixture
def queue_url(postgres_url: str) -> Iterator[str]:
    """The URL of a new, empty database on the session's PostgreSQL server, dropped after
    the test: each test's queue sees only its own runs."""
    with scratch_database(postgres_url, "queue") as url:
        yield url
