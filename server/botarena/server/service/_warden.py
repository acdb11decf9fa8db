"""The gRPC port's per-peer connection cap: grpc accepts every connection itself and
counts none by peer, so a sweep every second counts the port's connections by peer
host, as the kernel lists them (``sock_diag`` over netlink, filtered to the port: what
``ss`` reads), and shuts down those past the cap (roughly the newest: the highest
inodes; the kernel hands them out in per-CPU batches) (docs/decisions.md: Connections).

Linux only; elsewhere the cap is not enforced. A connection is shut down through a
duplicate of grpc's descriptor, checked to be the same socket (its inode), so grpc sees
its peer hang up and closes it as usual; a descriptor grpc closed and reused meanwhile
is left alone.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import socket
import stat
import struct
from collections import defaultdict
from collections.abc import Collection, Iterator

import structlog

__all__ = ["DEFAULT_SWEEP_INTERVAL", "PeerWarden"]

_logger = structlog.get_logger("botarena.service")

DEFAULT_SWEEP_INTERVAL = 1.0
"""Seconds between two sweeps of the gRPC port's connections."""

_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST_DUMP = 0x1 | 0x300
_NLMSG_ERROR, _NLMSG_DONE = 2, 3
_INET_DIAG_REQ_BYTECODE = 1
_BC_S_GE, _BC_S_LE = 2, 3
_TCP_ESTABLISHED = 1  # not the listener, nor one shut down already (FIN_WAIT)
_HEADER = struct.Struct("=IHHII")  # nlmsghdr: length, type, flags, sequence, port id
_REQUEST = struct.Struct("=BBBBI48s")  # inet_diag_req_v2, its socket id left empty
_ATTRIBUTE = struct.Struct("=HH")  # nlattr: length, type
_OP = struct.Struct("=BBH")  # inet_diag_bc_op: code, yes, no
_INODE = struct.Struct("=I")
# In an inet_diag_msg: the peer's address, and the inode.
_PEER, _PEER_END, _INODE_AT = 24, 40, 68
_MAPPED = b"\0" * 10 + b"\xff\xff"  # an IPv4 address mapped into IPv6
_LOOPBACK = b"\0" * 15 + b"\1"


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
        self.ports = sorted(set(ports))
        self.max_per_peer = max_per_peer
        self.interval = interval
        self.closed = 0
        """Connections shut down so far for being past the cap."""

    @staticmethod
    def available() -> bool:
        """Whether this system lets the sweep see connections (Linux)."""
        return hasattr(socket, "AF_NETLINK") and os.path.isdir("/proc/self/fd")

    async def run(self) -> None:
        """Sweep every ``interval`` seconds, off the event loop, until cancelled (or
        until the kernel refuses the count: the cap is then said to be off)."""
        while True:
            await asyncio.sleep(self.interval)
            try:
                await asyncio.to_thread(self.sweep)
            except OSError as error:  # sock_diag refused (a sandbox, say)
                _logger.warning(
                    "connections cannot be counted by peer: no per-peer cap",
                    error=str(error),
                )
                return

    def sweep(self) -> int:
        """Shut down every peer's connections past the cap; return how many."""
        # Cheap first: fewer descriptors in all than the cap, and no peer can be past it.
        if len(os.listdir("/proc/self/fd")) <= self.max_per_peer:
            return 0
        over: dict[bytes, list[int]] = {}
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

    def _connections(self) -> dict[bytes, list[int]]:
        """The inodes of the ports' established connections, by the peer's address."""
        peers: dict[bytes, list[int]] = defaultdict(list)
        with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, _NETLINK_SOCK_DIAG) as netlink:
            for family in (socket.AF_INET, socket.AF_INET6):
                for port in self.ports:
                    for peer, inode in _dump(netlink, family, port):
                        peers[peer].append(inode)
        return peers


def _dump(netlink: socket.socket, family: int, port: int) -> Iterator[tuple[bytes, int]]:
    """The peer address and inode of every established TCP connection of ``family`` to
    local ``port`` (the kernel filters: ``sport >= port and sport <= port``)."""
    # Two conditions of 8 bytes (an op and its port): true jumps to the next, false
    # past the end (+4), which rejects the socket.
    bytecode = b"".join(
        (
            _OP.pack(_BC_S_GE, 8, 20),
            _OP.pack(0, 0, port),
            _OP.pack(_BC_S_LE, 8, 12),
            _OP.pack(0, 0, port),
        )
    )
    body = _REQUEST.pack(family, socket.IPPROTO_TCP, 0, 0, 1 << _TCP_ESTABLISHED, b"")
    body += _ATTRIBUTE.pack(_ATTRIBUTE.size + len(bytecode), _INET_DIAG_REQ_BYTECODE) + bytecode
    netlink.send(
        _HEADER.pack(_HEADER.size + len(body), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST_DUMP, 1, 0)
        + body
    )
    while True:
        data = netlink.recv(1 << 20)
        offset = 0
        while offset + _HEADER.size <= len(data):
            length, kind, _, _, _ = _HEADER.unpack_from(data, offset)
            if kind == _NLMSG_DONE:
                return
            if kind == _NLMSG_ERROR:
                code = -struct.unpack_from("=i", data, offset + _HEADER.size)[0]
                raise OSError(code, os.strerror(code))
            message = offset + _HEADER.size
            peer = data[message + _PEER : message + _PEER_END]
            if family == socket.AF_INET:
                peer = peer[:4]
            elif peer.startswith(_MAPPED):
                peer = peer[12:]
            elif peer != _LOOPBACK:
                peer = peer[:8]  # an IPv6 host's /64, as admission counts callers
            yield peer, _INODE.unpack_from(data, message + _INODE_AT)[0]
            offset += (length + 3) & ~3
        if not data:
            return


def _descriptors(inodes: set[int]) -> dict[int, int]:
    """This process's descriptors of the sockets ``inodes``, by inode (an ``fstat`` of
    each descriptor: a third of the time a ``readlink`` of /proc/self/fd takes)."""
    found: dict[int, int] = {}
    for name in os.listdir("/proc/self/fd"):
        descriptor = int(name)
        try:
            status = os.fstat(descriptor)
        except OSError:  # closed meanwhile, or the listing's own
            continue
        if stat.S_ISSOCK(status.st_mode) and status.st_ino in inodes:
            found[status.st_ino] = descriptor
    return found


def _shut_down(descriptor: int, inode: int) -> bool:
    """Shut the socket down through a duplicate of ``descriptor`` if it still is
    ``inode``; its owner (grpc) then sees the peer gone and closes it."""
    try:
        duplicate = os.dup(descriptor)
    except OSError:
        return False
    try:
        status = os.fstat(duplicate)
        if not stat.S_ISSOCK(status.st_mode) or status.st_ino != inode:
            return False
        # Family and type given, socket() asks the kernel for neither (and shutdown
        # takes any family).
        connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM, fileno=duplicate)
        try:
            connection.shutdown(socket.SHUT_RDWR)
        finally:
            connection.detach()  # the duplicate is closed below
        return True
    except OSError:
        return False
    finally:
        os.close(duplicate)


def _host(address: bytes) -> str:
    """The peer's address (an IPv6 /64's 8 bytes) as text."""
    if len(address) == 8:
        return f"{ipaddress.ip_address(address + bytes(8))}/64"
    return str(ipaddress.ip_address(address))
