"""The namespace package stays intact: four source roots, one `botarena`, no stray names."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import botarena

REPO = Path(__file__).resolve().parent.parent
SOURCE_ROOTS = ("proto", "server", "clients", "bots")
SUBPACKAGES = ("botarena.v1", "botarena.server", "botarena.clients", "botarena.bots")


def test_botarena_is_a_namespace_package() -> None:
    # A regular package would have __file__; a namespace package spans all source roots.
    assert getattr(botarena, "__file__", None) is None
    paths = {Path(p).resolve() for p in botarena.__path__}
    assert paths == {REPO / root / "botarena" for root in SOURCE_ROOTS}


@pytest.mark.parametrize("root", SOURCE_ROOTS)
def test_no_source_root_has_a_botarena_init(root: str) -> None:
    assert not (REPO / root / "botarena" / "__init__.py").exists()


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_subpackage_imports(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__file__ is not None
    assert Path(module.__file__).is_relative_to(REPO)


def test_every_module_imports() -> None:
    failures = []
    for name in SUBPACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
            try:
                importlib.import_module(info.name)
            except Exception as exc:  # pragma: no cover - the assertion reports it
                failures.append(f"{info.name}: {exc!r}")
    assert failures == []


@pytest.mark.parametrize("bare", SOURCE_ROOTS)
def test_source_roots_are_not_importable_outside_the_repo(bare: str, tmp_path: Path) -> None:
    # Run from an unrelated folder so the current directory cannot put `server` on sys.path.
    result = subprocess.run(
        [sys.executable, "-c", f"import {bare}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "ModuleNotFoundError" in result.stderr


def test_installed_botarena_resolves_outside_the_repo(tmp_path: Path) -> None:
    code = "import botarena.server.games, botarena.v1.qwirkle_pb2; print('ok')"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


@pytest.mark.timeout(300)
def test_wheel_contains_only_the_botarena_namespace(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (wheel,) = tmp_path.glob("botarena-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    top_level = {name.split("/", 1)[0] for name in names}
    dist_info = {entry for entry in top_level if entry.endswith(".dist-info")}
    assert top_level - dist_info == {"botarena"}
    assert not any(name.startswith("botarena/__init__") for name in names)
    for expected in (
        "botarena/v1/qwirkle_pb2.py",
        "botarena/v1/qwirkle.proto",
        "botarena/server/games/_core.py",
        "botarena/server/games/queendomino/data/dominoes.json",
        "botarena/server/games/queendomino/data/buildings.json",
        "botarena/clients/py.typed",
        "botarena/server/service/viewers/protobuf.js",
        "botarena/bots/__init__.py",
    ):
        assert expected in names
