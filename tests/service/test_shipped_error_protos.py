# mypy: disable-error-code="import-untyped,attr-defined"
"""proto/third_party/google/rpc ships googleapis' error protos for other languages' bot
authors: they compile with ours and describe exactly the messages the server sends (the
Python ones of googleapis-common-protos, which the server encodes its refusals with)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_tools import protoc

PROTO = Path(__file__).resolve().parents[2] / "proto"


@pytest.fixture(scope="module")
def compiled(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    out = tmp_path_factory.mktemp("protos") / "set.binpb"
    ours = sorted(str(p.relative_to(PROTO)) for p in (PROTO / "botarena").rglob("*.proto"))
    vendored = PROTO / "third_party"
    theirs = sorted(str(p.relative_to(vendored)) for p in vendored.rglob("*.proto"))
    include = str(files("grpc_tools") / "_proto")
    includes = [f"-I{PROTO}", f"-I{vendored}", f"-I{include}"]
    code = protoc.main(["protoc", *includes, f"--descriptor_set_out={out}", *ours, *theirs])
    assert code == 0, "the shipped protos do not compile together"
    descriptors = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    return {file.name: file for file in descriptors.file}


@pytest.mark.parametrize("module", [status_pb2, error_details_pb2])
def test_the_shipped_error_protos_are_the_ones_the_server_encodes_with(
    module: object, compiled: dict[str, descriptor_pb2.FileDescriptorProto]
) -> None:
    expected = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(expected)
    shipped = compiled[expected.name]
    assert [m.name for m in shipped.message_type] == [m.name for m in expected.message_type]
    for ours, theirs in zip(shipped.message_type, expected.message_type, strict=True):
        _without_json_names(ours)  # protoc fills them in; the runtime's copy leaves them out
        assert ours == theirs, f"{ours.name} differs from googleapis-common-protos"


def _without_json_names(message: descriptor_pb2.DescriptorProto) -> None:
    for field in message.field:
        field.ClearField("json_name")
    for nested in message.nested_type:
        _without_json_names(nested)


def test_every_message_the_docs_name_is_shipped(
    compiled: dict[str, descriptor_pb2.FileDescriptorProto],
) -> None:
    names = {
        message.name
        for file in compiled.values()
        if file.package == "google.rpc"
        for message in file.message_type
    }
    assert {"Status", "ErrorInfo", "BadRequest", "RetryInfo"} <= names
