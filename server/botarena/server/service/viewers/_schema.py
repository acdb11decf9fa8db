"""The schema the browser's protobuf decoder (``protobuf.js``) reads a replay with.

:func:`message_schema` turns a message's descriptor, and every message and enum it
reaches, into a compact table that ``protobuf.js`` decodes binary protobuf with, into
the object ``json_format.MessageToDict`` makes of the same message (the proto3 JSON
mapping). Nothing in it is particular to a game: a new game's messages need no change to
the JavaScript. The table, as JSON::

    {"messages": [[full_name, special, fields], ...],   # messages[0] is the root
     "enums": [[full_name, closed, {number: name}], ...]}

``special`` names a well-known type that proto3 JSON writes its own way (``timestamp``,
``duration``, ``wrapper``, ``fieldmask``, ``struct``, ``value``, ``listvalue``), else is
``""``; ``closed`` is 1 for an enum whose unknown numbers are dropped (proto2's). A
field is ``[number, json_name, type, rule, ref, oneof]``, by number, its trailing -1s
left out: ``type`` the ``FieldDescriptor.TYPE_*`` number, ``rule`` one of
:data:`IMPLICIT` / :data:`PRESENCE` / :data:`REPEATED` / :data:`MAP`, ``ref`` the index
of its message (a map's entry) or enum, ``oneof`` the index of its oneof in the message.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from botarena.v1 import match_pb2

__all__ = ["IMPLICIT", "MAP", "PRESENCE", "REPEATED", "message_schema", "replay_schema"]

IMPLICIT = 0
"""A singular field without presence (proto3's plain fields): left out when default."""
PRESENCE = 1
"""A singular field with presence (messages, ``optional``, oneof members): kept when set."""
REPEATED = 2
"""A repeated field: left out when empty."""
MAP = 3
"""A map field: its ``ref`` is the entry message (key field 1, value field 2)."""

_SPECIAL = {
    "google.protobuf.Timestamp": "timestamp",
    "google.protobuf.Duration": "duration",
    "google.protobuf.FieldMask": "fieldmask",
    "google.protobuf.Struct": "struct",
    "google.protobuf.Value": "value",
    "google.protobuf.ListValue": "listvalue",
}
_UNSUPPORTED = {"google.protobuf.Any": "its content's type is known only at run time"}


def _special(message: Descriptor) -> str:
    if message.full_name in _UNSUPPORTED:
        reason = _UNSUPPORTED[message.full_name]
        raise ValueError(f"the viewer cannot decode {message.full_name}: {reason}")
    if message.file.name == "google/protobuf/wrappers.proto":
        return "wrapper"  # json_format's test for a wrapper, too
    return _SPECIAL.get(message.full_name, "")


def _rule(field: FieldDescriptor) -> int:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        return MAP
    if field.is_repeated:
        return REPEATED
    return PRESENCE if field.has_presence else IMPLICIT


def message_schema(root: Descriptor) -> dict[str, list[Any]]:
    """The decoder's table of ``root`` and of every message and enum it reaches.

    Raises:
        ValueError: It reaches a group field or a ``google.protobuf.Any``, which the
            decoder does not read.
    """
    messages: list[Descriptor] = []
    enums: list[EnumDescriptor] = []
    message_index: dict[str, int] = {}
    enum_index: dict[str, int] = {}
    pending = [root]
    while pending:
        message = pending.pop()
        if message.full_name in message_index:
            continue
        message_index[message.full_name] = len(messages)
        messages.append(message)
        for field in sorted(message.fields, key=lambda f: f.number, reverse=True):
            if field.type == FieldDescriptor.TYPE_GROUP:
                raise ValueError(f"the viewer cannot decode the group field {field.full_name}")
            if field.message_type is not None:
                pending.append(field.message_type)
            elif field.enum_type is not None and field.enum_type.full_name not in enum_index:
                enum_index[field.enum_type.full_name] = len(enums)
                enums.append(field.enum_type)

    def entry(field: FieldDescriptor) -> list[Any]:
        ref = -1
        if field.message_type is not None:
            ref = message_index[field.message_type.full_name]
        elif field.enum_type is not None:
            ref = enum_index[field.enum_type.full_name]
        oneof = -1 if field.containing_oneof is None else field.containing_oneof.index
        row: list[Any] = [field.number, field.json_name, field.type, _rule(field), ref, oneof]
        while row[-1] == -1:
            row.pop()
        return row

    return {
        "messages": [
            [
                message.full_name,
                _special(message),
                [entry(field) for field in sorted(message.fields, key=lambda f: f.number)],
            ]
            for message in messages
        ],
        "enums": [
            [
                enum.full_name,
                int(enum.is_closed),
                {str(number): value.name for number, value in enum.values_by_number.items()},
            ]
            for enum in enums
        ],
    }


@functools.cache
def replay_schema() -> str:
    """The decoder's table of ``botarena.v1.Replay``, as compact JSON (made once)."""
    return json.dumps(message_schema(match_pb2.Replay.DESCRIPTOR), separators=(",", ":"))
