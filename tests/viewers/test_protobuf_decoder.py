"""The viewer's protobuf decoder (viewers/protobuf.js) in a real browser: binary protobuf in,
exactly what ``json_format.MessageToDict`` makes out.

First the replays of real games, as the page decodes them for its renderers; then the
decoder on its own, with a message made here that has every field type, rule and
well-known type (seeded random values, merged concatenations, hand-made wire bytes),
decoded with the table ``message_schema`` makes of it.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import random
import string
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import (  # the well-known types' files, for the test message's pool
    descriptor_pb2,
    descriptor_pool,
    duration_pb2,
    empty_pb2,
    field_mask_pb2,
    json_format,
    message_factory,
    struct_pb2,
    timestamp_pb2,
    wrappers_pb2,
)
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message

from botarena.clients.replays import replay_json
from botarena.server.service.viewers._schema import message_schema, replay_schema
from botarena.server.service.viewers.html import build_html

from .conftest import GAMES, Page, PlayedGame, make_forfeit_game

_PROTOBUF_JS = (
    Path(__file__).resolve().parents[2] / "server/botarena/server/service/viewers/protobuf.js"
).read_text(encoding="utf-8")


def _page_replay(tab: Page, path: Path) -> Any:
    """The replay object the page's renderers get, back in Python."""
    page = tab.open(path)
    return json.loads(page.evaluate("() => JSON.stringify(window.botarenaViewer.replay)"))


# ---------------------------------------------------------------------------- real replays


@pytest.mark.parametrize("name", GAMES)
def test_the_page_decodes_a_replay_into_what_message_to_dict_makes(
    name: str, games: dict[str, PlayedGame], tab: Page
) -> None:
    game = games[name]
    assert _page_replay(tab, game.page) == json_format.MessageToDict(game.replay)


def test_a_three_seat_replay_with_a_forfeit_decodes_the_same(tmp_path: Path, tab: Page) -> None:
    game = make_forfeit_game(tmp_path)
    decoded = _page_replay(tab, game.page)
    assert decoded == json_format.MessageToDict(game.replay)
    assert any("seatForfeited" in step["event"] for step in decoded["steps"])


def test_a_page_of_an_older_json_replay_file_still_shows_it(
    games: dict[str, PlayedGame], tab: Page, tmp_path: Path
) -> None:
    replay = games["qwirkle"].replay
    older = gzip.compress(replay_json(replay).encode(), mtime=0)  # a replay.json.gz's bytes
    path = tmp_path / "older.html"
    path.write_text(build_html(replay, encoded=older), encoding="utf-8")
    assert _page_replay(tab, path) == json_format.MessageToDict(replay)


def test_the_schema_is_made_once_and_names_every_message_of_the_replay() -> None:
    assert replay_schema() is replay_schema()
    names = {row[0] for row in json.loads(replay_schema())["messages"]}
    assert {"botarena.v1.Replay", "botarena.v1.QwirkleView", "google.protobuf.Duration"} <= names


# ---------------------------------------------------------------------------- every field type

_T = FieldDescriptor
_SCALARS = {
    "double": _T.TYPE_DOUBLE,
    "float": _T.TYPE_FLOAT,
    "int64": _T.TYPE_INT64,
    "uint64": _T.TYPE_UINT64,
    "int32": _T.TYPE_INT32,
    "fixed64": _T.TYPE_FIXED64,
    "fixed32": _T.TYPE_FIXED32,
    "bool": _T.TYPE_BOOL,
    "string": _T.TYPE_STRING,
    "bytes": _T.TYPE_BYTES,
    "uint32": _T.TYPE_UINT32,
    "sfixed32": _T.TYPE_SFIXED32,
    "sfixed64": _T.TYPE_SFIXED64,
    "sint32": _T.TYPE_SINT32,
    "sint64": _T.TYPE_SINT64,
}
_WELL_KNOWN = {
    "timestamp": "Timestamp",
    "duration": "Duration",
    "int64_value": "Int64Value",
    "uint32_value": "UInt32Value",
    "bool_value": "BoolValue",
    "string_value": "StringValue",
    "bytes_value": "BytesValue",
    "float_value": "FloatValue",
    "double_value": "DoubleValue",
    "struct": "Struct",
    "value": "Value",
    "list_value": "ListValue",
    "field_mask": "FieldMask",
    "empty": "Empty",
}
_WKT_FILES = [
    module.DESCRIPTOR.name
    for module in (timestamp_pb2, duration_pb2, wrappers_pb2, struct_pb2, field_mask_pb2, empty_pb2)
]
_PACKABLE = {name for name in _SCALARS if name not in ("string", "bytes")}


def _every_field(message: descriptor_pb2.DescriptorProto, *, packed: bool) -> None:
    """Fields of every type and rule (the same numbers in both messages but packing)."""
    optional, repeated = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL, 3
    message_type = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
    enum_type = descriptor_pb2.FieldDescriptorProto.TYPE_ENUM

    def add(name: str, number: int, kind: int, label: int = optional, **more: Any) -> Any:
        return message.field.add(name=name, number=number, type=kind, label=label, **more)

    message.oneof_decl.add(name="choice")  # real oneofs before proto3 optional's own
    choice = 0
    # Scalar fields are numbered by their type: plain 1-18, optional 101-118, many 201-218.
    for name, kind in _SCALARS.items():
        add(f"plain_{name}", kind, kind)
        add(
            f"opt_{name}",
            100 + kind,
            kind,
            proto3_optional=True,
            oneof_index=len(message.oneof_decl),
        )
        message.oneof_decl.add(name=f"_opt_{name}")
        field = add(f"many_{name}", 200 + kind, kind, repeated)
        if name in _PACKABLE and not packed:
            field.options.packed = False
    add("colour", 14, enum_type, type_name=".t.Colour")
    colours = add("colours", 214, enum_type, repeated, type_name=".t.Colour")
    if not packed:
        colours.options.packed = False
    add("child", 21, message_type, type_name=".t.Every")
    add("children", 22, message_type, repeated, type_name=".t.Every")
    add("pick_int", 30, _T.TYPE_INT32, oneof_index=choice)
    add("pick_text", 31, _T.TYPE_STRING, oneof_index=choice)
    add("pick_child", 32, message_type, type_name=".t.Every", oneof_index=choice)
    add("pick_colour", 33, enum_type, type_name=".t.Colour", oneof_index=choice)
    for number, (name, wkt) in enumerate(_WELL_KNOWN.items(), start=40):
        add(name, number, message_type, type_name=f".google.protobuf.{wkt}")
    add("durations", 60, message_type, repeated, type_name=".google.protobuf.Duration")
    maps = {
        "by_name": (_T.TYPE_STRING, _T.TYPE_INT64, ""),
        "by_number": (_T.TYPE_INT32, message_type, ".t.Every"),
        "by_flag": (_T.TYPE_BOOL, enum_type, ".t.Colour"),
        "by_id": (_T.TYPE_UINT64, _T.TYPE_STRING, ""),
        "by_delta": (_T.TYPE_SINT32, _T.TYPE_DOUBLE, ""),
        "times": (_T.TYPE_STRING, message_type, ".google.protobuf.Timestamp"),
    }
    for number, (name, (key, value, value_type)) in enumerate(maps.items(), start=70):
        entry = message.nested_type.add(name=f"{name.title().replace('_', '')}Entry")
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, type=key, label=optional)
        value_field = entry.field.add(name="value", number=2, type=value, label=optional)
        if value_type:
            value_field.type_name = value_type
        add(name, number, message_type, repeated, type_name=f".t.{message.name}.{entry.name}")


def _test_file() -> descriptor_pb2.FileDescriptorProto:
    test_file = descriptor_pb2.FileDescriptorProto(
        name="botarena_test/decoder.proto", package="t", syntax="proto3", dependency=_WKT_FILES
    )
    colour = test_file.enum_type.add(name="Colour")
    for number, name in enumerate(("COLOUR_UNSPECIFIED", "COLOUR_RED", "COLOUR_BLUE")):
        colour.value.add(name=name, number=number)
    _every_field(test_file.message_type.add(name="Every"), packed=True)
    _every_field(test_file.message_type.add(name="Unpacked"), packed=False)
    return test_file


def _legacy_file() -> descriptor_pb2.FileDescriptorProto:
    """A proto2 message: a closed enum (unknown numbers dropped) and presence everywhere."""
    legacy = descriptor_pb2.FileDescriptorProto(
        name="botarena_test/legacy.proto", package="t2", syntax="proto2"
    )
    shade = legacy.enum_type.add(name="Shade")
    shade.value.add(name="SHADE_DARK", number=1)
    shade.value.add(name="SHADE_LIGHT", number=2)
    old = legacy.message_type.add(name="Old")
    old.field.add(name="count", number=1, type=_T.TYPE_INT32, label=1)
    old.field.add(name="shade", number=2, type=_T.TYPE_ENUM, label=1, type_name=".t2.Shade")
    old.field.add(name="shades", number=3, type=_T.TYPE_ENUM, label=3, type_name=".t2.Shade")
    return legacy


def _message_class(name: str) -> type[Message]:
    pool = descriptor_pool.Default()
    try:
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
    except KeyError:
        pool.Add(_test_file())
        pool.Add(_legacy_file())
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))


def _float32(value: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


class _Values:
    """Seeded random values of each field type, often at an edge."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        edges = [low, high, 0, 1, -1, 127, 128, 300, -300, 2**31, 2**32 - 1, 2**53 + 1]
        choice = self.rng.random()
        if choice < 0.4:
            return max(low, min(high, self.rng.choice(edges)))
        if choice < 0.7:
            return self.rng.randint(max(low, -1000), min(high, 1000))
        return self.rng.randint(low, high)

    def double(self) -> float:
        specials = [0.0, -0.0, 1.5, -2.25, math.inf, -math.inf, math.nan, 1e308, 5e-324, 0.1]
        if self.rng.random() < 0.5:
            return self.rng.choice(specials)
        return self.rng.uniform(-1e6, 1e6) * 10.0 ** self.rng.randint(-30, 30)

    def text(self) -> str:
        alphabet = string.ascii_letters + '0 _"\\\n\té€\U0001f600'
        return "".join(self.rng.choice(alphabet) for _ in range(self.rng.randint(0, 12)))

    def scalar(self, kind: int) -> Any:
        signed = {_T.TYPE_INT32: 32, _T.TYPE_SINT32: 32, _T.TYPE_SFIXED32: 32}
        signed |= {_T.TYPE_INT64: 64, _T.TYPE_SINT64: 64, _T.TYPE_SFIXED64: 64}
        unsigned = {_T.TYPE_UINT32: 32, _T.TYPE_FIXED32: 32, _T.TYPE_UINT64: 64}
        unsigned[_T.TYPE_FIXED64] = 64
        if kind in signed:
            bits = signed[kind]
            return self.integer(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        if kind in unsigned:
            return self.integer(0, 2 ** unsigned[kind] - 1)
        if kind == _T.TYPE_DOUBLE:
            return self.double()
        if kind == _T.TYPE_FLOAT:
            value = self.double()
            return _float32(value) if abs(value) < 3e38 or not math.isfinite(value) else 1.0
        if kind == _T.TYPE_BOOL:
            return self.rng.random() < 0.5
        if kind == _T.TYPE_STRING:
            return self.text()
        if kind == _T.TYPE_BYTES:
            return self.rng.randbytes(self.rng.randint(0, 9))
        if kind == _T.TYPE_ENUM:
            return self.rng.choice([0, 1, 2, 2, 5, -3])  # open enum: unknown numbers too
        raise AssertionError(kind)

    def json_value(self, depth: int) -> Any:
        kinds = ["null", "number", "text", "bool"] + (["list", "object"] if depth < 2 else [])
        kind = self.rng.choice(kinds)
        if kind == "number":
            return self.rng.choice([0, 1.5, -7, 1e300, self.rng.uniform(-1e9, 1e9)])
        if kind == "text":
            return self.text()
        if kind == "bool":
            return self.rng.random() < 0.5
        if kind == "list":
            return [self.json_value(depth + 1) for _ in range(self.rng.randint(0, 3))]
        if kind == "object":
            return {self.text(): self.json_value(depth + 1) for _ in range(self.rng.randint(0, 3))}
        return None

    def nanos(self) -> int:
        unit = self.rng.choice([0, 10**6, 10**3, 1])
        return self.rng.randint(0, 999_999_999) // unit * unit if unit else 0

    def fill_well_known(self, message: Any) -> None:
        rng = self.rng
        if rng.random() < 0.6:
            message.timestamp.seconds = rng.choice(
                [-62135596800, 253402300799, 0, rng.randint(-62135596800, 253402300799)]
            )
            message.timestamp.nanos = self.nanos()
        for duration in [message.duration] + [message.durations.add() for _ in range(2)]:
            if rng.random() < 0.6:
                seconds = rng.choice([0, 315576000000, rng.randint(0, 315576000000), 1])
                nanos = self.nanos()
                sign = rng.choice([1, -1])
                duration.seconds, duration.nanos = sign * seconds, sign * nanos
        for name, kind in [
            ("int64_value", _T.TYPE_INT64),
            ("uint32_value", _T.TYPE_UINT32),
            ("bool_value", _T.TYPE_BOOL),
            ("string_value", _T.TYPE_STRING),
            ("bytes_value", _T.TYPE_BYTES),
            ("float_value", _T.TYPE_FLOAT),
            ("double_value", _T.TYPE_DOUBLE),
        ]:
            if rng.random() < 0.5:
                wrapper = getattr(message, name)
                wrapper.SetInParent()
                if rng.random() < 0.7:
                    wrapper.value = self.scalar(kind)
        if rng.random() < 0.5:
            message.struct.update(
                {"k": self.json_value(0), "n": 1, self.text(): self.json_value(1)}
            )
        if rng.random() < 0.5:
            json_format.ParseDict(self.json_value(0), message.value)
        if rng.random() < 0.5:
            message.list_value.extend([self.json_value(1), self.json_value(1)])
        if rng.random() < 0.5:
            message.field_mask.paths.extend(rng.sample(["a", "b_c", "d_e.f_g", "h1"], 2))
        if rng.random() < 0.3:
            message.empty.SetInParent()

    def fill(self, message: Any, depth: int = 0) -> Any:
        """Set a random part of ``message``'s fields (an ``Every``) and return it."""
        rng = self.rng
        for name, kind in _SCALARS.items():
            if rng.random() < 0.5:
                setattr(message, f"plain_{name}", self.scalar(kind))
            if rng.random() < 0.4:
                setattr(message, f"opt_{name}", self.scalar(kind))
            if rng.random() < 0.4:
                getattr(message, f"many_{name}").extend(
                    self.scalar(kind) for _ in range(rng.randint(0, 4))
                )
        if rng.random() < 0.5:
            message.colour = self.scalar(_T.TYPE_ENUM)
        message.colours.extend(self.scalar(_T.TYPE_ENUM) for _ in range(rng.randint(0, 3)))
        pick = rng.choice(["pick_int", "pick_text", "pick_child", "pick_colour", None])
        if pick == "pick_int":
            message.pick_int = self.scalar(_T.TYPE_INT32)
        elif pick == "pick_text":
            message.pick_text = self.text()
        elif pick == "pick_child":
            message.pick_child.SetInParent()
        elif pick == "pick_colour":
            message.pick_colour = self.scalar(_T.TYPE_ENUM)
        if depth < 2:
            if rng.random() < 0.5:
                self.fill(message.child, depth + 1)
            for _ in range(rng.randint(0, 2)):
                self.fill(message.children.add(), depth + 1)
            for _ in range(rng.randint(0, 2)):
                self.fill(message.by_number[self.scalar(_T.TYPE_INT32)], depth + 1)
        for _ in range(rng.randint(0, 3)):
            message.by_name[self.text()] = self.scalar(_T.TYPE_INT64)
            message.by_flag[rng.random() < 0.5] = self.scalar(_T.TYPE_ENUM)
            message.by_id[self.scalar(_T.TYPE_UINT64)] = self.text()
            message.by_delta[self.scalar(_T.TYPE_SINT32)] = self.double()
        if rng.random() < 0.3:
            message.times["at"].seconds = rng.randint(0, 2**31)
        self.fill_well_known(message)
        return message


def _decode(tab: Page, schema: dict[str, Any], blobs: Sequence[bytes], root: str) -> list[Any]:
    """Each of ``blobs`` decoded by protobuf.js as ``root``: its object, or the error."""
    tab.page.set_content(f"<script>{_PROTOBUF_JS}</script>")
    answers = tab.page.evaluate(
        """([schema, blobs, root]) => blobs.map((blob) => {
          const bytes = Uint8Array.from(atob(blob), (c) => c.charCodeAt(0));
          try { return JSON.stringify(botarenaProtobuf.decode(schema, bytes, root)); }
          catch (error) { return "error: " + error.message; }
        })""",
        [schema, [base64.b64encode(blob).decode() for blob in blobs], root],
    )
    # Every JSON number is a JavaScript double: 39199105935297110 is 3.919910593529711e16.
    return [
        answer if answer.startswith("error: ") else json.loads(answer, parse_int=float)
        for answer in answers
    ]


def _difference(got: Any, want: Any, path: str = "") -> str | None:
    """Where ``got`` first differs from ``want`` (a path and both values), if anywhere."""
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(set(got) | set(want)):
            if key not in got or key not in want:
                return (
                    f"{path}.{key}: {got.get(key, '<absent>')!r} != {want.get(key, '<absent>')!r}"
                )
            found = _difference(got[key], want[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        for index, (left, right) in enumerate(zip(got, want, strict=True)):
            found = _difference(left, right, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if got == want else f"{path}: {got!r} != {want!r}"


def _expected(cls: type[Message], blob: bytes) -> Any:
    """What MessageToDict makes of ``blob``, or ``"error"`` where it refuses (a Duration
    whose merged seconds and nanos disagree in sign)."""
    message = cls()
    message.ParseFromString(blob)
    try:
        return json_format.MessageToDict(message)
    except json_format.SerializeToJsonError:
        return "error"


def _same(got: Any, want: Any) -> str | None:
    """Why the decoder's answer is not json_format's, if it is not."""
    if want == "error":
        return None if isinstance(got, str) and got.startswith("error: ") else f"{got!r}"
    return _difference(got, want)


def _schema(cls: type[Message]) -> dict[str, Any]:
    return message_schema(descriptor_pool.Default().FindMessageTypeByName(cls.DESCRIPTOR.full_name))


def test_every_field_type_decodes_as_message_to_dict_writes_it(tab: Page) -> None:
    every = _message_class("t.Every")
    values = _Values(seed=1)
    messages = [values.fill(every()) for _ in range(150)]
    blobs = [message.SerializeToString() for message in messages]
    # Concatenated messages merge: last scalar wins, messages merge, oneofs switch.
    blobs += [blobs[i] + blobs[i + 1] for i in range(0, 60, 2)]
    decoded = _decode(tab, _schema(every), blobs, "t.Every")
    for blob, got in zip(blobs, decoded, strict=True):
        assert _same(got, _expected(every, blob)) is None


def test_unpacked_repeated_scalars_read_as_packed_ones_do(tab: Page) -> None:
    every, unpacked = _message_class("t.Every"), _message_class("t.Unpacked")
    values = _Values(seed=2)
    blobs = []
    for _ in range(40):
        message = unpacked()
        message.ParseFromString(values.fill(every()).SerializeToString())
        blobs.append(message.SerializeToString())
    blobs.append(blobs[0] + _message_class("t.Every")().SerializeToString() + blobs[1])
    assert any(b != every.FromString(b).SerializeToString() for b in blobs)  # really unpacked
    for blob, got in zip(blobs, _decode(tab, _schema(every), blobs, "t.Every"), strict=True):
        assert _same(got, _expected(every, blob)) is None


def _varint(value: int) -> bytes:
    value &= 2**64 - 1
    out = bytearray()
    while True:
        out.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def _tag(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _field(number: int, payload: bytes) -> bytes:
    return _tag(number, 2) + _varint(len(payload)) + payload


_HAND_MADE: dict[str, bytes] = {
    "implicit zero on the wire": _tag(5, 0) + _varint(0) + _field(9, b"") + _tag(8, 0) + b"\0",
    "negative int32 in ten bytes": _tag(5, 0) + _varint(-5),
    "int64 extremes": _tag(3, 0) + _varint(-(2**63)) + _tag(203, 0) + _varint(2**63 - 1),
    "unknown fields of every wire type": (
        _tag(999, 0)
        + _varint(7)
        + _tag(998, 1)
        + b"\1" * 8
        + _field(997, b"xyz")
        + _tag(996, 5)
        + b"\2" * 4
        + _tag(995, 3)
        + _tag(1, 0)
        + b"\1"
        + _tag(995, 4)
        + _tag(5, 0)
        + _varint(42)
    ),
    "a known field with the wrong wire type": _tag(5, 5) + b"\1\0\0\0" + _tag(9, 0) + b"\1",
    "packed and unpacked in one field": (
        _field(205, _varint(1) + _varint(-2)) + _tag(205, 0) + _varint(3)
    ),
    "an empty packed run": _field(205, b""),
    "a message seen twice merges": _field(21, _tag(5, 0) + b"\1") + _field(21, _tag(8, 0) + b"\1"),
    "a oneof member replaced by another": _tag(30, 0) + b"\5" + _field(31, b"hi"),
    "the same oneof member twice": _field(32, _tag(5, 0) + b"\1") + _field(32, _tag(3, 0) + b"\2"),
    "an unknown enum number": _tag(14, 0) + _varint(77) + _field(214, _varint(1) + _varint(99)),
    "a map entry without key or value": _field(70, b"") + _field(71, b"") + _field(72, b""),
    "a map key seen twice": _field(70, _field(1, b"a") + _tag(2, 0) + b"\1")
    + _field(70, _field(1, b"a") + _tag(2, 0) + b"\2"),
    "an empty wrapper and struct": _field(42, b"") + _field(45, b"") + _field(49, b""),
    "an empty Value": _field(50, b""),
    "a Value set twice, another kind": _field(50, _tag(2, 1) + struct.pack("<d", 2.5))
    + _field(50, _field(3, b"now text")),
    "sint extremes": _tag(17, 0) + _varint(2**32 - 1) + _tag(18, 0) + _varint(2**64 - 1),
    "floats as json_format writes them": _tag(2, 5)
    + struct.pack("<f", 0.1)
    + _field(202, struct.pack("<4f", 1e-45, 3.4028234e38, 16777216.0, -0.3)),
}


@pytest.mark.parametrize("name", list(_HAND_MADE))
def test_hand_made_wire_bytes_decode_as_protobuf_reads_them(name: str, tab: Page) -> None:
    every = _message_class("t.Every")
    blob = _HAND_MADE[name]
    assert _decode(tab, _schema(every), [blob], "t.Every") == [_expected(every, blob)]


def test_a_closed_enum_drops_unknown_numbers_as_protobuf_does(tab: Page) -> None:
    old = _message_class("t2.Old")
    blob = _tag(1, 0) + b"\0" + _tag(2, 0) + b"\7" + _tag(3, 0) + b"\2" + _tag(3, 0) + b"\x09"
    assert _decode(tab, _schema(old), [blob], "t2.Old") == [_expected(old, blob)]
    assert _expected(old, blob) == {"count": 0, "shades": ["SHADE_LIGHT"]}


_BROKEN: dict[str, bytes] = {
    "a truncated varint": _tag(5, 0) + b"\x80",
    "a length past the end": _tag(9, 2) + b"\x05ab",
    "a truncated fixed64": _tag(6, 1) + b"\1\2\3",
    "a group never closed": _tag(995, 3) + _tag(1, 0) + b"\1",
    "an end of group alone": _tag(995, 4),
    "wire type 7": _tag(5, 7),
    "field number 0": _tag(0, 0) + b"\1",
    "not UTF-8": _field(9, b"\xff\xfe"),
}


@pytest.mark.parametrize("name", list(_BROKEN))
def test_broken_bytes_fail_to_decode_as_they_fail_in_python(name: str, tab: Page) -> None:
    every = _message_class("t.Every")
    blob = _BROKEN[name]
    with pytest.raises(DecodeError):
        every.FromString(blob)
    [answer] = _decode(tab, _schema(every), [blob], "t.Every")
    assert isinstance(answer, str)
    assert answer.startswith("error: ")


def test_the_schema_refuses_what_the_decoder_cannot_read() -> None:
    from google.protobuf import any_pb2

    with pytest.raises(ValueError, match=r"google\.protobuf\.Any"):
        message_schema(any_pb2.Any.DESCRIPTOR)
