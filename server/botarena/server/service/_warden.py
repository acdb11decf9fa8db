"""The gRPC port's per-peer connection cap: grpc accepts every connection itself and
counts none by peer, so a sweep every second counts the port's connections by peer
host in the kernel's socket tables and shuts down those past the cap (the newest,
roughly: the highest inodes; the kernel hands them out in per-CPU batches)
(docs/decisions.md: Connections).

Linux only (``/proc/net/tcp``, ``/proc/self/fd``); elsewhere the cap is not enforced.
A connection is shut down through a duplicate of grpc's descriptor, checked to be the
same socket (its inode), so grpc sees its peer hang up and closes it as usual; a
descriptor grpc closed and reused meanwhile is left alone.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections import defaultdict
from collections.abc import Collection

import structlog

__all__ = ["DEFAULT_SWEEP_INTERVAL", "PeerWarden"]

_logger = structlog.get_logger("botarena.service")

DEFAULT_SWEEP_INTERVAL = 1.0
"""Seconds between two sweeps of the gRPC port's connections."""

_TABLES = ("/proc/net/tcp", "/proc/net/tcp6")
_LISTEN = "0A"
# An IPv4 address as /proc/net/tcp6 writes it once mapped into IPv6.
_MAPPED = "0000000000000000FFFF0000"


class PeerWarden:
    """Keeps each peer host to ``max_per_peer`` connections on ``ports``.

    Args:
        ports: The gRPC port(s) listened on.
        max_per_peer: Connections one peer host may hold.
        interval: Seconds between sweeps.
    """

    def __init__(
        self,
        ports: Collection[int],
        max_per_peer: int,
        interval: float = DEFAULT_SWEEP_INTERVAL,
    ) -> None:
        self.suffixes = tuple(f":{port:04X}" for port in ports)
        self.max_per_peer = max_per_peer
        self.interval = interval
        self.closed = 0
        """Connections shut down so far for being past the cap."""

    @staticmethod
    def available() -> bool:
        """Whether this system lets the sweep see connections (Linux's /proc)."""
        return os.path.exists(_TABLES[0]) and os.path.isdir("/proc/self/fd")

    async def run(self) -> None:
        """Sweep every ``interval`` seconds, off the event loop, until cancelled."""
        while True:
            await asyncio.sleep(self.interval)
            await asyncio.to_thread(self.sweep)

    def sweep(self) -> int:
        """Shut down every peer's connections past the cap; return how many."""
        # Cheap first: fewer descriptors in all than the cap, and no peer can be past it.
        if len(os.listdir("/proc/self/fd")) <= self.max_per_peer:
            return 0
        over: dict[str, list[int]] = {}
        for peer, inodes in self._connections().items():
            if len(inodes) > self.max_per_peer:
                # Roughly the newest: inodes grow, in per-CPU batches.
                over[peer] = sorted(inodes)[self.max_per_peer :]
        if not over:
            return 0
        descriptors = _descriptors({inode for inodes in over.values() for inode in inodes})
        closed = 0
        for peer, inodes in over.items():
            shut = sum(
                _shut_down(descriptors[inode], inode) for inode in inodes if inode in descriptors
            )
            if shut:
                closed += shut
                _logger.warning(
                    "connections past the per-peer cap closed",
                    peer=_host(peer),
                    closed=shut,
                    max_connections_per_peer=self.max_per_peer,
                )
        self.closed += closed
        return closed

    def _connections(self) -> dict[str, list[int]]:
        """The inodes of the ports' open connections, by the peer's address (hex)."""
        peers: dict[str, list[int]] = defaultdict(list)
        for table in _TABLES:
            try:
                with open(table, encoding="ascii") as lines:
                    next(lines, None)
                    for line in lines:
                        fields = line.split(maxsplit=10)
                        local, remote, state, inode = fields[1], fields[2], fields[3], fields[9]
                        # A closed connection in TIME_WAIT holds no descriptor (inode 0).
                        if state == _LISTEN or inode == "0" or not local.endswith(self.suffixes):
                            continue
                        address = remote.rpartition(":")[0]
                        if address.startswith(_MAPPED):
                            address = address[len(_MAPPED) :]
                        peers[address].append(int(inode))
            except FileNotFoundError:  # no IPv6
                continue
        return peers


def _descriptors(inodes: set[int]) -> dict[int, int]:
    """This process's descriptors of the sockets ``inodes``, by inode."""
    found: dict[int, int] = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inode = int(target[8:-1])
            if inode in inodes:
                found[inode] = int(name)
    return found


def _shut_down(descriptor: int, inode: int) -> bool:
    """Shut the socket down through a duplicate of ``descriptor`` if it still is
    ``inode``; its owner (grpc) then sees the peer gone and closes it."""
    try:
        duplicate = os.dup(descriptor)
    except OSError:
        return False
    try:
        if os.fstat(duplicate).st_ino != inode:
            return False
        connection = socket.socket(fileno=duplicate)
        try:
            connection.shutdown(socket.SHUT_RDWR)
        finally:
            connection.detach()  # the duplicate is closed below
        return True
    except OSError:
        return False
    finally:
        os.close(duplicate)


def _host(address: str) -> str:
    """The peer's address as text, from /proc/net/tcp's hex (host byte order words)."""
    try:
        raw = bytes.fromhex(address)
        words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
        family = socket.AF_INET if len(words) == 4 else socket.AF_INET6
        return socket.inet_ntop(family, words)
    except ValueError:
        return address
