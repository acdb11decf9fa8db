"""Writing files a reader never sees half-written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_atomically"]

FILE_MODE = 0o644


def write_atomically(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file beside it and a rename, so a
    reader sees the whole file or the one before; the file gets mode 0644. Returns
    ``path``.

    Not fsynced: a killed process leaves whole files either way, and a sync costs
    milliseconds each time; a power cut may lose the last files written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(handle, FILE_MODE)
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path
