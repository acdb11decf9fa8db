"""Regenerate the Python code and typed stubs committed beside proto/botarena/v1/*.proto.

Usage:
    python scripts/gen_protos.py           # rewrite the generated files in place
    python scripts/gen_protos.py --check   # exit 1 if a committed file differs or is missing

Uses the pinned grpcio-tools (protoc) and mypy-protobuf from the dev extras, so every
machine produces byte-identical output. Files without a ``service`` get no ``*_pb2_grpc``
modules: they would be empty.
"""

from __future__ import annotations

import argparse
import difflib
import filecmp
import shutil
import sys
import tempfile
from importlib.resources import files
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
# Ours: proto/third_party holds googleapis' error protos for other languages' authors; their
# Python code comes from googleapis-common-protos, so nothing is generated for them.
SOURCE_ROOT = PROTO_ROOT / "botarena"
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", "_pb2_grpc.pyi")


def _protoc(args: list[str]) -> None:
    include = str(files("grpc_tools") / "_proto")
    # mypy-protobuf's plugins live beside this interpreter; name them so PATH does not matter.
    bin_dir = Path(sys.executable).parent
    plugins = [
        f"--plugin=protoc-gen-{name}={bin_dir / f'protoc-gen-{name}'}"
        for name in ("mypy", "mypy_grpc")
    ]
    code = protoc.main(["grpc_tools.protoc", f"-I{PROTO_ROOT}", f"-I{include}", *plugins, *args])
    if code != 0:
        raise SystemExit(f"protoc failed with exit code {code}")


def generate(out: Path) -> list[Path]:
    """Generate code for every .proto under proto/ into ``out``; return the files written."""
    sources = sorted(SOURCE_ROOT.rglob("*.proto"))
    if not sources:
        raise SystemExit(f"no .proto files under {SOURCE_ROOT}")
    relative = [str(path.relative_to(PROTO_ROOT)) for path in sources]
    _protoc([f"--python_out={out}", f"--mypy_out={out}", *relative])
    with_services = [rel for rel, path in zip(relative, sources, strict=True) if _has_service(path)]
    if with_services:
        _protoc([f"--grpc_python_out={out}", f"--mypy_grpc_out={out}", *with_services])
    return sorted(p.relative_to(out) for p in out.rglob("*") if p.name.endswith(GENERATED_SUFFIXES))


def _has_service(path: Path) -> bool:
    return any(line.lstrip().startswith("service ") for line in path.read_text().splitlines())


def committed() -> list[Path]:
    """Return the generated files currently in proto/, relative to it."""
    return sorted(
        p.relative_to(PROTO_ROOT)
        for p in PROTO_ROOT.rglob("*")
        if p.name.endswith(GENERATED_SUFFIXES)
    )


def check(fresh: Path, written: list[Path]) -> int:
    """Compare freshly generated files with proto/; print what differs; return an exit code."""
    problems = 0
    for rel in sorted(set(written) | set(committed())):
        new, old = fresh / rel, PROTO_ROOT / rel
        if not old.exists():
            print(f"missing: proto/{rel} (run `make proto`)")
        elif not new.exists():
            print(f"stale: proto/{rel} has no .proto source any more (run `make proto`)")
        elif not filecmp.cmp(new, old, shallow=False):
            print(f"out of date: proto/{rel} (run `make proto`)")
            diff = difflib.unified_diff(
                old.read_text().splitlines(), new.read_text().splitlines(), lineterm="", n=1
            )
            for line in list(diff)[:20]:
                print(f"    {line[:160]}")
        else:
            continue
        problems += 1
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail on drift, change nothing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        written = generate(fresh)
        if args.check:
            status = check(fresh, written)
            if status == 0:
                print(f"generated code is up to date ({len(written)} files)")
            return status
        for rel in committed():
            if rel not in written:
                (PROTO_ROOT / rel).unlink()
        for rel in written:
            (PROTO_ROOT / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(fresh / rel, PROTO_ROOT / rel)
        print(f"wrote {len(written)} generated files under proto/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
