"""Child processes of the runner: a picklable coroutine function run in a fresh
interpreter, talking to the runner over a framed channel.

The runner's workers (``_workers``) run this way, so that they and the runner each have
a core and a GIL of their own. A child:

* is ``python -c 'from botarena.clients.runner._child import main; main()'`` in its own
  session (a terminal's Ctrl-C reaches only the runner, which then stops its children);
* gets the runner's ``sys.path`` and its entry point (``entry(channel)``, pickled by
  reference) as the first frame on stdin; its stdout carries the frames back, and
  anything it prints goes to the runner's stderr;
* ends when its stdin closes, which is also what happens when the runner dies.

A frame is a 4-byte length and a pickle. Both ends are this package, so the pickles are
trusted.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import signal
import struct
import sys
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["Channel", "ChildProcess", "main"]

_LENGTH = struct.Struct("!I")
_STOP_GRACE = 5.0


class Channel:
    """One end of the framed channel: messages are picklable values."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    def send(self, message: object) -> None:
        """Queue ``message`` for the other end (it is written as the loop runs).

        Raises:
            ConnectionError: The other end is gone.
        """
        if self._writer.is_closing():
            raise ConnectionResetError("the other end of the channel is gone")
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        self._writer.write(_LENGTH.pack(len(data)) + data)

    async def receive(self) -> Any:
        """Return the next message, or ``None`` once the other end has closed."""
        try:
            header = await self._reader.readexactly(_LENGTH.size)
            return pickle.loads(await self._reader.readexactly(_LENGTH.unpack(header)[0]))
        except (asyncio.IncompleteReadError, ConnectionError):
            return None

    def close(self) -> None:
        """Close the sending side: the other end's :meth:`receive` returns ``None``."""
        self._writer.close()


Entry = Callable[[Channel], Awaitable[None]]
"""A child's work: a module-level coroutine function (pickled by reference), often a
``functools.partial`` of one with picklable arguments."""


class ChildProcess:
    """A running child process and the runner's end of its channel.

    Start one with :meth:`start`; stop it with :meth:`stop` (or :meth:`kill`).
    """

    def __init__(self, process: asyncio.subprocess.Process, channel: Channel) -> None:
        self.process = process
        self.channel = channel

    @classmethod
    async def start(cls, entry: Entry) -> ChildProcess:
        """Start a child that runs ``entry(channel)``.

        Raises:
            pickle.PicklingError, AttributeError, TypeError: ``entry`` cannot be pickled.
            OSError: The interpreter cannot be started.
        """
        # The path first: the entry (and what it refers to) is unpickled with it.
        payload = pickle.dumps(
            (list(sys.path), pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)),
            protocol=pickle.HIGHEST_PROTOCOL,
        )
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            f"from {__name__} import main; main()",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write(_LENGTH.pack(len(payload)) + payload)
        return cls(process, Channel(process.stdout, process.stdin))

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self.process.pid

    async def stop(self, grace: float = _STOP_GRACE) -> int:
        """Close the channel, give the child ``grace`` seconds to end, then kill it.

        Returns:
            Its exit status (negative: the signal that ended it).
        """
        self.channel.close()
        try:
            return await asyncio.wait_for(asyncio.shield(self.process.wait()), grace)
        except TimeoutError:
            self.kill()
            return await self.process.wait()

    def kill(self) -> None:
        """Kill the child at once (SIGKILL)."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()


async def _run(entry: Entry, out_fd: int) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    stdin = open(0, "rb", buffering=0, closefd=False)  # noqa: SIM115 (the loop owns it)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    out = open(out_fd, "wb", buffering=0)  # noqa: SIM115 (the loop owns it)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, out)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    try:
        await entry(Channel(reader, writer))
        with contextlib.suppress(ConnectionError):
            await writer.drain()
    finally:
        writer.close()


def _read_exactly(fd: int, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main() -> None:
    """Run a child: read its entry point, run it, exit when it returns."""
    # Ctrl-C is the runner's to handle; a SIGINT from elsewhere is as good as ignored.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The frames go out on a private copy of stdout; fd 1 becomes stderr, so that what the
    # entry prints cannot corrupt them.
    out_fd = os.dup(1)
    os.dup2(2, 1)
    # Unbuffered reads: whatever follows the first frame is the loop's to read.
    header = _read_exactly(0, _LENGTH.size)
    frame = header and _read_exactly(0, _LENGTH.unpack(header)[0])
    if not frame:
        return  # the runner went away before it said what to do
    path, entry = pickle.loads(frame)
    sys.path[:] = path
    asyncio.run(_run(pickle.loads(entry), out_fd))
