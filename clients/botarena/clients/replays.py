"""Replay files: a finished match in one file (docs/replays.md).

A replay file is one ``botarena.v1.Replay`` message in binary protobuf, gzip-compressed
(``replay.binpb.gz``): every event, every seat's view after it, the game's secrets and
the engine seed. Any language reads it with protobuf's generated ``Replay`` type
(``proto/botarena/v1/*.proto``); ``botarena replay FILE --json -`` prints its proto3
JSON. :func:`load_replay` tells the forms apart by their content, not their names: plain
binary, and the proto3 JSON that replay files held before (``.json.gz``, ``.json``),
load too.

Format versions: 2 is this one (binary, or proto3 JSON in older files). Version 1 was
the runner's ``replay.jsonl`` (a header line and the events, no views); :func:`load_replay`
still reads it, making the views again through the engine. Any other version is refused
with :class:`ReplayFormatError` naming it.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError

from botarena.clients._files import write_atomically
from botarena.v1 import match_pb2

__all__ = [
    "READABLE_FORMAT_VERSIONS",
    "REPLAY_FILE_NAME",
    "ReplayFormatError",
    "load_replay",
    "replay_json",
    "save_replay",
]

REPLAY_FILE_NAME = "replay.binpb.gz"
"""The name the runner gives each game's replay file."""

READABLE_FORMAT_VERSIONS = (1, 2)
"""The format versions :func:`load_replay` reads."""

_GZIP_MAGIC = b"\x1f\x8b"
_NOT_A_REPLAY = "not a replay (neither proto3 JSON nor a binary botarena.v1.Replay)"


class ReplayFormatError(ValueError):
    """The file is no replay, or one of a format version this botarena cannot read."""


def replay_json(replay: match_pb2.Replay, *, indent: int | None = None) -> str:
    """Return ``replay`` as proto3 JSON (lowerCamelCase names, enum names): compact, or
    pretty-printed with ``indent`` spaces."""
    data = json_format.MessageToDict(replay)
    if indent is None:
        return json.dumps(data, separators=(",", ":"))
    return _unprintable_escaped(json.dumps(data, indent=indent, ensure_ascii=False))


def _unprintable_escaped(text: str) -> str:
    """Return JSON ``text`` with each character that is not printable (outside the line
    breaks) as its ``\\u`` escape: the same JSON, safe on a terminal (a name may hold C1
    controls or bidi overrides, which ``ensure_ascii=False`` leaves raw)."""
    if text.replace("\n", "").isprintable():
        return text
    return "".join(
        character if character.isprintable() or character == "\n" else json.dumps(character)[1:-1]
        for character in text
    )


def save_replay(replay: match_pb2.Replay, path: Path | str) -> Path:
    """Write ``replay`` to ``path`` atomically (a reader sees the whole file or none),
    mode 0644, in the form its name asks for: ``.json`` proto3 JSON, ``.json.gz`` the
    same gzip'd, anything else gzip'd binary protobuf (``replay.binpb.gz``). Returns the
    path."""
    path = Path(path)
    name = path.name.lower()
    if name.endswith(".json"):
        data = replay_json(replay).encode()
    elif name.endswith(".json.gz"):
        data = gzip.compress(replay_json(replay).encode(), compresslevel=6, mtime=0)
    else:
        data = gzip.compress(replay.SerializeToString(deterministic=True), compresslevel=6, mtime=0)
    return write_atomically(path, data)


def load_replay(
    path: Path | str, overrides: Mapping[str, Mapping[str, object]] | None = None
) -> match_pb2.Replay:
    """Read a replay file of any readable format version.

    The form is told by the content: gzip or not, then proto3 JSON (``{`` first, after
    any white space) or binary protobuf.

    Args:
        path: A version 2 replay: binary protobuf (``replay.binpb.gz``, or plain) or
            proto3 JSON (``.json.gz``, ``.json``); or a version 1 ``replay.jsonl``.
        overrides: For a version 1 file: the config overrides of the server that played
            it (``{"queendomino": {"buildings": table}}``), to make the views with.

    Raises:
        ReplayFormatError: Not a replay, a format version it cannot read (named), or a
            version 1 file whose moves the engine refuses.
        OSError: The file cannot be read.
    """
    raw = Path(path).read_bytes()
    if raw.startswith(_GZIP_MAGIC):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as error:
            raise ReplayFormatError(f"{path}: a damaged gzip file ({error})") from None
    if not raw.lstrip(b" \t\r\n").startswith(b"{"):
        return _binary(path, raw)
    text = raw.decode("utf-8", errors="replace")
    first_line = text.split("\n", 1)[0]
    try:
        head = json.loads(first_line)
    except json.JSONDecodeError:
        try:
            head = json.loads(text)
        except json.JSONDecodeError as error:
            raise ReplayFormatError(f"{path}: not a replay (no JSON: {error})") from None
    if not isinstance(head, dict):
        raise ReplayFormatError(f"{path}: not a replay (JSON {type(head).__name__})")
    if head.get("type") == "header":
        return _version_1(path, head, text, overrides)
    version = head.get("formatVersion", head.get("format_version"))
    if version != 2:
        raise ReplayFormatError(_version_message(path, version))
    replay = match_pb2.Replay()
    try:
        json_format.ParseDict(head, replay)
    except json_format.ParseError as error:
        raise ReplayFormatError(f"{path}: a damaged version 2 replay: {error}") from None
    return replay


def _binary(path: Path | str, raw: bytes) -> match_pb2.Replay:
    """A binary ``Replay``; anything that does not parse, or has no version, is none."""
    replay = match_pb2.Replay()
    try:
        replay.ParseFromString(raw)
    except DecodeError as error:
        raise ReplayFormatError(f"{path}: {_NOT_A_REPLAY}: {error}") from None
    if replay.format_version == 0:
        raise ReplayFormatError(f"{path}: {_NOT_A_REPLAY}: no format version")
    if replay.format_version != 2:
        raise ReplayFormatError(_version_message(path, replay.format_version))
    return replay


def _version_message(path: Path | str, version: object) -> str:
    readable = ", ".join(str(v) for v in READABLE_FORMAT_VERSIONS)
    if version is None:
        return f"{path}: not a replay (no format version)"
    if version == 1:  # readable, but only as what the runner wrote then
        return f"{path}: not a replay (format version 1 replays are replay.jsonl files)"
    return (
        f"{path}: replay format version {version} is not supported; this botarena reads "
        f"versions {readable} (a newer botarena wrote it?)"
    )


def _version_1(
    path: Path | str,
    header: Mapping[str, Any],
    text: str,
    overrides: Mapping[str, Mapping[str, object]] | None,
) -> match_pb2.Replay:
    """A version 1 ``replay.jsonl`` as a version 2 replay, its views made again."""
    from botarena.server.service._replays import (
        REPLAY_FORMAT_VERSION,
        ReplayMismatchError,
        replay_views,
    )

    version = header.get("schema_version")
    if version != 1:
        raise ReplayFormatError(_version_message(path, version))
    try:
        config = json_format.ParseDict(header["config"], match_pb2.MatchConfig())
        config.seed = int(header["seed"])
        events = [
            json_format.ParseDict(json.loads(line), match_pb2.MatchEvent())
            for line in text.split("\n")[1:]
            if line.strip()
        ]
    except (KeyError, ValueError, json_format.ParseError) as error:
        raise ReplayFormatError(f"{path}: a damaged version 1 replay: {error}") from None
    if not events or events[0].WhichOneof("kind") != "match_started":
        raise ReplayFormatError(f"{path}: a version 1 replay without its MatchStarted event")
    replay = match_pb2.Replay(format_version=REPLAY_FORMAT_VERSION)
    replay.match.CopyFrom(events[0].match_started.match)
    replay.match.config.CopyFrom(config)
    last = events[-1]
    if last.WhichOneof("kind") == "match_finished":
        replay.match.state = match_pb2.Match.STATE_FINISHED
        replay.match.outcome.CopyFrom(last.match_finished.outcome)
        replay.match.end_time.CopyFrom(last.time)
    replay.match.state_version = last.state_version
    for seat, name in zip(replay.match.seats, header.get("bots") or (), strict=False):
        seat.display_name = seat.display_name or str(name)
    try:
        for event, (spectator, seats) in zip(
            events, replay_views(config, events, overrides), strict=True
        ):
            step = replay.steps.add(event=event, spectator_view=spectator)
            if event.HasField("move_applied"):
                step.event.move_applied.ClearField("view")
            step.seat_views.extend(seats)
    except ReplayMismatchError as error:
        raise ReplayFormatError(f"{path}: the engine cannot replay it: {error}") from None
    return replay
