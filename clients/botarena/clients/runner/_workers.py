"""Where a run's games are played: the runner's worker processes.

The runner, the embedded server and the built-in bots used to share one process and one
GIL, so a run used one core. Now the games of a run are spread over worker processes
(``_child``), each with a core and a GIL of its own (bench/bench_runner.py):

* Without ``--server``, each worker hosts an embedded server on ``127.0.0.1`` and a free
  port and plays the built-in bots' seats of the games on that server, through the SDK
  (:func:`run_bot_async`) as before. A game and its bots stay in one process: a move
  then never waits for another process to wake up, and the games of a run are
  independent, so workers scale with cores. Each game goes to the worker with the fewest
  games in flight.
* With ``--server``, workers only play the built-in bots' seats, each seat in the worker
  with the fewest seats.

The runner itself creates the matches, watches them as a spectator and starts command
bots, as before. A built-in bot's seat is a coroutine the runner awaits as it awaited an
in-process bot: it returns once the bot saw the end of its match, raises what the bot
raised (with the worker's traceback as its cause), and cancelling it stops the seat in the
worker. A bot that cannot be sent to a worker (its factory does not pickle, or the worker
cannot load it) plays in the runner's process.

A worker that hosts a server and exits while the run goes on stops the run
(:class:`EmbeddedServerExitedError`): the games on it are lost, and waiting for it as for
a restarted ``--server`` would only hold the run up. A worker without a server that exits
fails the seats it played (:class:`BotWorkerExitedError`, a crash of those bots); a new
one takes its place.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import itertools
import logging
import os
import pickle
import traceback
from collections.abc import Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

from botarena.clients._aio import AsyncMatchClient
from botarena.clients._bot import Bot, run_bot_async
from botarena.clients._retry import RECONNECT_CHANNEL_OPTIONS
from botarena.clients.runner._child import Channel, ChildProcess

__all__ = [
    "BotWorkerExitedError",
    "EmbeddedServerExitedError",
    "Place",
    "Workers",
    "worker_count",
]

_HOST = "127.0.0.1"
_START_TIMEOUT = 60.0
_SERVER_STOP_GRACE = 1.0


class EmbeddedServerExitedError(Exception):
    """A worker hosting an embedded server ended while the run was going; the run stops."""


class BotWorkerExitedError(Exception):
    """The worker process playing the seat ended before the seat's match did."""


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker, as its text."""

    def __str__(self) -> str:
        return str(self.args[0])


def worker_count(concurrency: int, *, embedded: bool, builtin_seats: int) -> int:
    """Return how many workers a run starts: one per core this process may use, never
    more than there are games (embedded servers) or built-in seats (``--server``) in
    flight."""
    cores = len(os.sched_getaffinity(0))
    in_flight = concurrency if embedded else concurrency * builtin_seats
    return max(1 if embedded else 0, min(cores, in_flight))


@dataclass(slots=True)
class _Worker:
    process: ChildProcess
    plays: frozenset[str]
    target: str | None  # its embedded server's address
    seats: dict[int, asyncio.Future[object]] = field(default_factory=dict)
    reader: asyncio.Task[None] | None = None
    status: int | None = None  # set once it has exited


@dataclass(slots=True)
class Place:
    """A server of the run, leased for one game (:meth:`Workers.lease`).

    Attributes:
        target: Its address, ``host:port``, handed to command bots.
        client: The runner's client of it (with the admin token, if any).
        games: The games in flight on it.
    """

    target: str
    client: AsyncMatchClient
    workers: Workers = field(repr=False)
    host: _Worker | None = field(default=None, repr=False)  # the worker serving it
    games: int = 0

    def player(
        self, name: str, client: AsyncMatchClient, match: str, token: str, seed: int
    ) -> Coroutine[Any, Any, object]:
        """Return the coroutine that plays the built-in bot ``name`` in ``match``'s seat of
        ``token`` (see ``_play.SeatPlayers``)."""
        return self.workers.player(self, name, client, match, token, seed)


class Workers:
    """The worker processes of a run and the servers its games go to.

    Use as ``async with``, then :meth:`lease` a server for each game.

    Args:
        server: ``--server``; ``None`` makes each worker host an embedded server.
        count: How many workers to start (:func:`worker_count`).
        factories: The built-in bots by name.
        admin_token: The token the runner's clients send.
        server_options: Passed to each embedded server's ``create_server``.
    """

    def __init__(
        self,
        server: str | None,
        *,
        count: int,
        factories: Mapping[str, Callable[[], Bot]],
        admin_token: str | None = None,
        server_options: Mapping[str, Any] | None = None,
    ) -> None:
        self._server = server
        self._count = count
        self._factories = dict(factories)
        self._admin_token = admin_token
        self._server_options = dict(server_options or {})
        self._portable: dict[str, bytes] = {}
        self._workers: list[_Worker] = []
        self.places: list[Place] = []
        self._seat_ids = itertools.count()
        self._replacing = asyncio.Lock()
        self._task: asyncio.Task[Any] | None = None
        self._stopping = False
        self._exited: str | None = None

    async def __aenter__(self) -> Self:
        self._task = asyncio.current_task()
        for name, factory in self._factories.items():
            # A bot defined in a script (__main__) cannot be found by name in a worker.
            if getattr(factory, "__module__", "__main__") == "__main__":
                continue
            with contextlib.suppress(Exception):
                self._portable[name] = pickle.dumps(factory, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            if self._server is None or self._portable:
                started = await asyncio.gather(
                    *(self._start(index) for index in range(self._count)),
                    return_exceptions=True,
                )
                for result in started:
                    if isinstance(result, BaseException):
                        raise result
                    self._workers.append(result)
            if self._server is not None:
                self.places.append(Place(self._server, self._client(self._server), self))
            for worker in self._workers:
                if worker.target is not None:
                    place = Place(worker.target, self._client(worker.target), self, worker)
                    self.places.append(place)
        except BaseException:
            await self._close()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self._close()
        if self._exited is not None and isinstance(exc, asyncio.CancelledError):
            assert self._task is not None
            # Only our own cancellation becomes the error (asyncio.timeout does the same).
            if self._task.uncancel() == 0:
                raise EmbeddedServerExitedError(self._exited) from None

    @contextlib.contextmanager
    def lease(self) -> Iterator[Place]:
        """Hold the server with the fewest games in flight for one game."""
        place = min(self.places, key=lambda candidate: candidate.games)
        place.games += 1
        try:
            yield place
        finally:
            place.games -= 1

    def player(
        self, place: Place, name: str, client: AsyncMatchClient, match: str, token: str, seed: int
    ) -> Coroutine[Any, Any, object]:
        """Return the coroutine that plays ``name`` in a seat of ``place``'s match."""
        if place.host is not None:
            if name in place.host.plays:
                return self._play_in(place.host, name, place.host.target, match, token, seed)
        elif name in self._portable and any(name in w.plays for w in self._workers):
            return self._play_in(None, name, place.target, match, token, seed)
        return run_bot_async(
            self._factories[name](), server=client, token=token, match=match, seed=seed
        )

    async def _play_in(
        self,
        worker: _Worker | None,
        name: str,
        target: str | None,
        match: str,
        token: str,
        seed: int,
    ) -> object:
        if worker is None:
            worker = await self._bot_worker(name)
        if worker.status is not None:
            raise self._gone(worker)
        seat_id = next(self._seat_ids)
        done: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        worker.seats[seat_id] = done
        try:
            try:
                worker.process.channel.send(("play", seat_id, name, target, match, token, seed))
            except ConnectionError:
                raise self._gone(worker) from None
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            # Stop the seat in the worker, and return only once it has stopped there.
            if not done.done():
                with contextlib.suppress(ConnectionError):
                    worker.process.channel.send(("stop", seat_id))
                with contextlib.suppress(BaseException):
                    await done
            raise
        finally:
            worker.seats.pop(seat_id, None)

    async def _bot_worker(self, name: str) -> _Worker:
        """Return the worker without a server with the fewest seats (a new one if all died)."""
        async with self._replacing:
            alive = [w for w in self._workers if w.status is None and name in w.plays]
            if not alive:
                replacement = await self._start(len(self._workers))
                self._workers.append(replacement)
                alive = [replacement]
        return min(alive, key=lambda worker: len(worker.seats))

    def _client(self, target: str) -> AsyncMatchClient:
        return AsyncMatchClient(
            target=target, token=self._admin_token, channel_options=RECONNECT_CHANNEL_OPTIONS
        )

    async def _start(self, index: int) -> _Worker:
        options = self._server_options if self._server is None else None
        # One server's warnings are enough: they would all say the same (the operator's
        # building table, say).
        level = logging.WARNING if index == 0 else logging.ERROR
        entry = functools.partial(_work, options, level, self._portable)
        process = await ChildProcess.start(entry)
        try:
            message = await asyncio.wait_for(process.channel.receive(), _START_TIMEOUT)
        except BaseException:
            process.kill()
            await process.process.wait()
            raise
        if not (isinstance(message, tuple) and message[0] == "ready"):
            await process.stop(0)
            why = message[1] if isinstance(message, tuple) else "it exited"
            raise RuntimeError(f"a worker of the run did not start: {why}")
        _, port, plays = message
        target = None if port is None else f"{_HOST}:{port}"
        worker = _Worker(process, frozenset(plays), target)
        worker.reader = asyncio.create_task(self._read(worker))
        return worker

    async def _read(self, worker: _Worker) -> None:
        channel = worker.process.channel
        while (message := await channel.receive()) is not None:
            kind, seat_id, value = message
            done = worker.seats.get(seat_id)
            if done is None or done.done():
                continue
            if kind == "ended":
                done.set_result(value)
            elif kind == "raised":
                done.set_exception(_exception(*value))
            else:  # "stopped"
                done.cancel()
        worker.status = await worker.process.process.wait()
        if worker.target is not None and not self._stopping and self._exited is None:
            self._exited = (
                f"the worker hosting the embedded server {worker.target} (pid "
                f"{worker.process.pid}) exited with status {worker.status}"
            )
            if self._task is not None:
                self._task.cancel()
        for done in worker.seats.values():
            if not done.done():
                done.set_exception(self._gone(worker))

    @staticmethod
    def _gone(worker: _Worker) -> BotWorkerExitedError:
        how = "is gone" if worker.status is None else f"exited with status {worker.status}"
        return BotWorkerExitedError(f"the worker playing it (pid {worker.process.pid}) {how}")

    async def _close(self) -> None:
        self._stopping = True
        for place in self.places:
            await place.client.close()
        await asyncio.gather(*(worker.process.stop() for worker in self._workers))
        for worker in self._workers:
            if worker.reader is not None:
                with contextlib.suppress(BaseException):
                    await worker.reader


def _exception(pickled: bytes | None, kind: str, text: str, remote: str) -> BaseException:
    error: BaseException | None = None
    if pickled is not None:
        with contextlib.suppress(Exception):
            error = pickle.loads(pickled)
    if not isinstance(error, BaseException):
        error = RuntimeError(f"{kind}: {text}")
    error.__cause__ = RemoteTraceback(remote)
    return error


# ----------------------------------------------------------------------- the worker's side


async def _work(
    server_options: Mapping[str, Any] | None,
    level: int,
    portable: Mapping[str, bytes],
    channel: Channel,
) -> None:
    """A worker's process: host a server (unless ``server_options`` is ``None``) and play
    the seats the runner sends until it closes the channel."""
    server: Any = None
    port: int | None = None
    if server_options is not None:
        from botarena.server.service import configure_logging, create_server

        configure_logging(level=level)
        try:
            server, port = await create_server(f"{_HOST}:0", **server_options)
        except Exception as error:
            channel.send(("failed", f"{type(error).__name__}: {error}"))
            return
    factories: dict[str, Callable[[], Bot]] = {}
    for name, pickled in portable.items():
        with contextlib.suppress(Exception):
            factories[name] = pickle.loads(pickled)
    # This process is the run's, so its collector is ours to tune (docs/decisions.md:
    # the runner's workers): what start-up made is never garbage.
    gc.freeze()
    channel.send(("ready", port, sorted(factories)))
    try:
        await _play_seats(factories, channel, f"{_HOST}:{port}" if port else None)
    finally:
        if server is not None:
            await server.stop(_SERVER_STOP_GRACE)


async def _play_seats(
    factories: Mapping[str, Callable[[], Bot]], channel: Channel, local: str | None
) -> None:
    clients: dict[str, AsyncMatchClient] = {}
    seats: dict[int, asyncio.Task[object]] = {}

    def report(seat_id: int, task: asyncio.Task[object]) -> None:
        seats.pop(seat_id, None)
        with contextlib.suppress(ConnectionError):
            if task.cancelled():
                channel.send(("stopped", seat_id, None))
            elif (error := task.exception()) is not None:
                channel.send(("raised", seat_id, _portable_exception(error)))
            else:
                channel.send(("ended", seat_id, None))

    try:
        while (message := await channel.receive()) is not None:
            if message[0] == "play":
                _, seat_id, name, given, match, token, seed = message
                target = given or local
                assert target is not None  # a worker without a server is always told
                client = clients.get(target)
                if client is None:
                    client = clients[target] = AsyncMatchClient(
                        target=target, channel_options=RECONNECT_CHANNEL_OPTIONS
                    )
                seat: asyncio.Task[object] = asyncio.create_task(
                    run_bot_async(
                        factories[name](),
                        server=client,
                        token=token,
                        match=match,
                        seed=seed,
                    )
                )
                seats[seat_id] = seat
                seat.add_done_callback(functools.partial(report, seat_id))
            elif message[0] == "stop" and (stopped := seats.get(message[1])) is not None:
                stopped.cancel()
    finally:
        for running in seats.values():
            running.cancel()
        await asyncio.gather(*seats.values(), return_exceptions=True)
        for client in clients.values():
            await client.close()


def _portable_exception(error: BaseException) -> tuple[bytes | None, str, str, str]:
    pickled: bytes | None
    try:
        pickled = pickle.dumps(error, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.loads(pickled)  # some exceptions pickle but do not unpickle
    except Exception:
        pickled = None
    remote = "".join(traceback.format_exception(error)).rstrip("\n")
    return pickled, type(error).__name__, str(error), remote
