# mypy: disable-error-code="import-untyped"
"""Benchmark ``botarena match`` against the same bots' logic playing on the engine.

Usage: ``python bench/bench_runner.py [--games N] [--concurrency C] [--hop-games H]``

Part 1, throughput, in one run: games per second of ``botarena match --game qwirkle
--bot greedy --bot greedy`` (built-in bots, embedded servers, ``--concurrency`` = the
cores this process may use, no ``--out``), run as a child process, next to games per
second of the greedy bot's rule (``botarena.bots.GreedyQwirkleBot``: the best-scoring
placement, ties by a seeded pick, else the exchange outside the rack's best group, else
pass) played in this process on the engine's own values, no server, no protobuf, one
core. Prints ``runner/engine ratio: X`` and the CPU seconds the runner's processes spent
per game (user + system, every process it started included, start-up too) next to the
engine's: their ratio bounds X whatever the load (on C cores, X <= C / that ratio). The
engine runs before and after the runner; the mean of the two is used.

Part 2, where a decision's time goes: one game at a time (nothing else in flight). A
child process hosts a server and plays both greedy bots through the SDK
(``run_bot_async`` over one channel), as a worker of the runner does; this process
watches each game as a spectator, as the runner does. Each hop (a seat submits its move,
the next seat receives its decision, thinks, submits) is cut by timestamps on one clock
(``time.perf_counter``):

* *server*: from the SubmitMove handler's start to the moment the next seat's stream
  hands grpc the bytes of its DecisionRequested, the engine's calls in that span taken
  out and shown apart (*engine*);
* *transport*: the rest of the way: the SDK's SubmitMove call until the handler starts,
  and grpc handing the decision over until the SDK's stream has parsed it (grpc, protobuf
  serialization and parsing on both sides, the kernel);
* *SDK*: from the parsed decision to ``choose_move``, and from its return to the next
  SubmitMove call (mailbox, the decider task, the thinking thread, the request), less
  *the server's work for the other streams* meanwhile (encoding the mover's and the
  spectator's events, which share the worker's event loop; grpc sending them stays in
  the SDK's share);
* *bot*: ``choose_move`` itself.

Medians per hop, means in parentheses (the means add up to the hop's), then the CPU
time per decision of the worker and of the spectator. Timings on a shared machine are
noisy: read the ratios. Never a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

from botarena.server.games.qwirkle import QWIRKLE, Exchange, Pass, Place, QwirkleMove, QwirkleState
from botarena.server.games.qwirkle.tiles import Tile

# ------------------------------------------------------------------------- the engine side


def _best_group(rack: Sequence[Tile], rng: random.Random) -> list[Tile]:
    """``botarena.bots._greedy._best_group`` on engine tiles (same order, same picks)."""
    distinct = sorted(set(rack), key=_key)
    groups: list[list[Tile]] = []
    for attribute in (0, 1):
        for value in sorted({_key(tile)[attribute] for tile in distinct}):
            groups.append([tile for tile in distinct if _key(tile)[attribute] == value])
    if not groups:
        return []
    largest = max(len(group) for group in groups)
    candidates = [group for group in groups if len(group) == largest]
    return candidates[rng.randrange(len(candidates))]


def _key(tile: Tile) -> tuple[int, int]:
    return (int(tile.colour), int(tile.shape))


def engine_greedy(state: QwirkleState, seat: int, rng: random.Random) -> QwirkleMove:
    """The greedy bot's rule (``GreedyQwirkleBot``, exchange threshold 2) on the engine."""
    moves = QWIRKLE.legal_moves(state, seat)
    places = [move for move in moves if isinstance(move, Place)]
    exchanges = [move for move in moves if isinstance(move, Exchange)]
    best_score = max((move.score or 0 for move in places), default=None)
    if best_score is not None and (best_score > 2 or not exchanges):
        best = [move for move in places if (move.score or 0) == best_score]
        return best[rng.randrange(len(best))]
    if exchanges:
        view = QWIRKLE.view(state, seat)
        rack = sorted(view.rack or (), key=_key)
        keep = _best_group(rack, rng)
        remaining = Counter(rack)
        remaining.subtract(keep)
        outside = sorted(remaining.elements(), key=_key) or rack
        wanted = Counter(outside[: view.bag_size])
        for move in exchanges:
            if Counter(move.tiles) == wanted:
                return move
        return max(exchanges, key=lambda move: len(move.tiles))
    return next(move for move in moves if isinstance(move, Pass))


def engine_games(games: int) -> tuple[float, float, int]:
    """Play ``games`` seeded greedy-vs-greedy games; return (seconds, CPU seconds, decisions)."""
    decisions = 0
    started, cpu = time.perf_counter(), time.process_time()
    for seed in range(1, games + 1):
        rngs = [random.Random(seed * 2 + seat) for seat in (0, 1)]
        state = QWIRKLE.new_match(QWIRKLE.default_config(), 2, seed)
        while state.turn is not None:
            seat = state.turn
            state = QWIRKLE.apply(state, seat, engine_greedy(state, seat, rngs[seat]))
            decisions += 1
    return time.perf_counter() - started, time.process_time() - cpu, decisions


# ------------------------------------------------------------------------- the runner side


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def runner_games(games: int, concurrency: int) -> tuple[float, float, int]:
    """Run ``botarena match``; return (seconds it reports, CPU seconds of its processes,
    games finished)."""
    command = [sys.executable, "-m", "botarena.clients.cli", "match", "--game", "qwirkle"]
    command += ["--bot", "greedy", "--bot", "greedy", "--games", str(games)]
    command += ["--concurrency", str(concurrency), "--quiet", "--seed-key", "bench_runner"]
    cpu = _children_cpu()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    cpu = _children_cpu() - cpu
    found = re.search(r"(\d+) of (\d+) games, .*?, ([\d.]+) s", done.stdout)
    if done.returncode or found is None:
        raise RuntimeError(
            f"botarena match failed ({done.returncode}):\n{done.stdout}{done.stderr}"
        )
    return float(found.group(3)), cpu, int(found.group(1))


# ------------------------------------------------------------------------- part 2: one hop


class _Spans:
    """Adds up the time spent in an object's methods and keeps each call's span."""

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped
        self.spans: list[tuple[float, float]] = []

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._wrapped, name)
        if not callable(attribute):
            return attribute
        keep = self.spans.append

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return attribute(*args, **kwargs)
            finally:
                keep((started, time.perf_counter()))

        setattr(self, name, timed)
        return timed


def _spanned(method: Any, spans: list[tuple[float, float]]) -> Any:
    """``method``, keeping the span of each call in ``spans``."""

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            spans.append((started, time.perf_counter()))

    return timed


def _merged(spans: Sequence[Sequence[float]]) -> list[tuple[float, float]]:
    """The union of ``spans`` as sorted spans that do not overlap."""
    union: list[tuple[float, float]] = []
    for start, end in sorted((a, b) for a, b in spans):
        if union and start <= union[-1][1]:
            union[-1] = (union[-1][0], max(union[-1][1], end))
        else:
            union.append((start, end))
    return union


def _overlap(spans: Sequence[tuple[float, float]], start: float, end: float) -> float:
    return sum(max(0.0, min(b, end) - max(a, start)) for a, b in spans if b > start and a < end)


async def _watch_hops(games: int) -> dict[str, Any]:
    """Watch, as the runner does, ``games`` games a child process serves and plays (as a
    runner's worker does); return what the child timed and this process's CPU seconds."""
    from botarena.clients import AsyncMatchClient

    child = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--hops-child", str(games),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, limit=1 << 30,
    )  # fmt: skip
    assert child.stdin is not None
    assert child.stdout is not None
    port = int(await child.stdout.readline())
    cpu = 0.0
    async with AsyncMatchClient(target=f"127.0.0.1:{port}") as client:
        while (line := (await child.stdout.readline()).decode()).startswith("match "):
            name = line.split()[1]
            started = time.process_time()
            async with contextlib.aclosing(client.stream_match_events(name)) as events:
                await anext(events)  # watching: the child may play
                child.stdin.write(b"go\n")
                async for _ in events:
                    pass
            cpu += time.process_time() - started
        timed = json.loads(line)
    if await child.wait():
        raise RuntimeError(f"the bench's worker exited with {child.returncode}")
    result: dict[str, Any] = {**timed, "watch_cpu": cpu}
    return result


async def _serve_and_play(games: int) -> None:
    """The child of part 2: a server and both seats' bots in this process, instrumented."""
    from botarena.bots import GreedyBot
    from botarena.clients import AsyncMatchClient, _aio, _bot, run_bot_async
    from botarena.server.match import MatchManager
    from botarena.server.service import _convert, _servicer, configure_logging, create_server
    from botarena.v1 import match_pb2, match_service_pb2

    submits: list[tuple[str, int, float]] = []  # match, expected version, handler start
    sent: list[tuple[str, float, bytes]] = []  # match, handed to grpc, bytes
    servicer_class = _servicer.MatchServicer
    submit, stream = servicer_class.SubmitMove, servicer_class.StreamMatchEvents

    async def timed_submit(self: Any, request: Any, context: Any) -> Any:
        submits.append((request.match, request.expected_state_version, time.perf_counter()))
        return await submit(self, request, context)

    async def timed_stream(self: Any, request: Any, context: Any) -> AsyncIterator[bytes]:
        async for data in stream(self, request, context):
            sent.append((request.match, time.perf_counter(), data))
            yield data

    timed: dict[str, list[Any]] = {"submits": [], "arrived": [], "thought": []}
    submit_move = _aio.AsyncMatchClient.submit_move
    on_event = _bot._SeatPlayer.on_event

    async def timed_submit_move(self: Any, match: str, move: Any, **kwargs: Any) -> Any:
        timed["submits"].append((match, kwargs["expected_state_version"], time.perf_counter()))
        return await submit_move(self, match, move, **kwargs)

    def timed_on_event(self: Any, event: Any) -> Any:
        if event.WhichOneof("kind") == "decision_requested":
            timed["arrived"].append((self.match, event.state_version, time.perf_counter()))
        return on_event(self, event)

    class TimedGreedy(GreedyBot):
        def __init__(self, match: str) -> None:
            super().__init__()
            self.match = match

        def choose_move(self, view: Any, legal_moves: Any, rng: random.Random) -> Any:
            started = time.perf_counter()
            move = super().choose_move(view, legal_moves, rng)
            clock = _bot.current_decision()
            assert clock is not None
            timed["thought"].append((self.match, clock.state_version, started, time.perf_counter()))
            return move

    servicer_class.SubmitMove = timed_submit  # type: ignore[method-assign]
    servicer_class.StreamMatchEvents = timed_stream  # type: ignore[method-assign]
    _aio.AsyncMatchClient.submit_move = timed_submit_move  # type: ignore[method-assign]
    _bot._SeatPlayer.on_event = timed_on_event  # type: ignore[method-assign]
    configure_logging(level=logging.WARNING)
    rules = _Spans(QWIRKLE)
    encoding: list[tuple[float, float]] = []
    encoder_class = _convert.EventEncoder
    for method in ("event_bytes", "prepare_decision"):
        setattr(encoder_class, method, _spanned(getattr(encoder_class, method), encoding))
    server, port = await create_server(
        "127.0.0.1:0",
        manager=MatchManager(games=lambda name: rules, max_finished_matches=100),
        max_matches_per_caller=0,
    )
    print(port, flush=True)
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    cpu = 0.0
    async with AsyncMatchClient(target=f"127.0.0.1:{port}") as client:
        for seed in range(1, games + 1):
            created = await client.create_match(
                match_pb2.MatchConfig(game=match_pb2.GAME_QWIRKLE, seat_count=2, seed=seed)
            )
            name = created.match.name
            print("match", name, flush=True)
            await stdin.readline()
            started = time.process_time()
            await asyncio.gather(
                *(
                    run_bot_async(
                        TimedGreedy(name), server=client, token=seat.token, match=name, seed=seed
                    )
                    for seat in created.seat_tokens
                )
            )
            cpu += time.process_time() - started
    await server.stop(None)
    decisions = []
    for match, at, data in sent:
        event = match_service_pb2.StreamMatchEventsResponse.FromString(data).event
        if event.WhichOneof("kind") == "decision_requested":
            decisions.append((match, event.state_version, at))
    done = {
        "server": [submits, decisions],
        "client": timed,
        "engine": rules.spans,
        "encoding": encoding,
        "cpu": cpu,
    }
    print(json.dumps(done))


def _hop_split(
    server: list[Any], client: dict[str, Any], engine: list[Any], encoding: list[Any]
) -> dict[str, list[float]]:
    """Cut every hop (a submit, then the next decision's arrival, thought and submit)."""
    submits, decisions = server
    handler = {(match, version): at for match, version, at in submits}
    handed = {(match, version): at for match, version, at in decisions}
    sdk_submit = {(m, v): at for m, v, at in client["submits"]}
    arrived = {(m, v): at for m, v, at in client["arrived"]}
    thought = {(m, v): (a, b) for m, v, a, b in client["thought"]}
    parts: dict[str, list[float]] = {
        key: [] for key in ("server", "engine", "transport", "sdk", "others", "bot", "hop")
    }
    # The server's work for the other streams' events, in the SDK's windows: the
    # encoder's calls and the engine's (views), which share the worker's loop.
    others = _merged([*encoding, *engine])
    engine = _merged(engine)
    for (match, version), submitted in sdk_submit.items():
        # The move at `version` made the next decision at `version + 1`.
        nxt = (match, version + 1)
        if (match, version) not in handler or nxt not in handed or nxt not in thought:
            continue
        if nxt not in sdk_submit or nxt not in arrived:
            continue
        start, out = handler[(match, version)], handed[nxt]
        engine_time = _overlap(engine, start, out)
        think_start, think_end = thought[nxt]
        parts["engine"].append(engine_time)
        parts["server"].append(out - start - engine_time)
        parts["transport"].append((start - submitted) + (arrived[nxt] - out))
        windows = ((arrived[nxt], think_start), (think_end, sdk_submit[nxt]))
        in_windows = sum(_overlap(others, a, b) for a, b in windows)
        parts["others"].append(in_windows)
        parts["sdk"].append(sum(b - a for a, b in windows) - in_windows)
        parts["bot"].append(think_end - think_start)
        parts["hop"].append(sdk_submit[nxt] - submitted)
    return parts


# ------------------------------------------------------------------------- main


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.1f} ms"


def _us(values: Sequence[float]) -> str:
    median, mean = statistics.median(values) * 1e6, statistics.fmean(values) * 1e6
    return f"{median:7.0f} us  ({mean:.0f})"


def main() -> None:
    """Run the benchmark and print its numbers."""
    cores = len(os.sched_getaffinity(0))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games of the runner")
    parser.add_argument("--concurrency", type=int, default=cores, help="(default: the cores)")
    parser.add_argument("--hop-games", type=int, default=10, help="games of part 2; 0 skips")
    parser.add_argument("--hops-child", type=int, help=argparse.SUPPRESS)  # part 2's child
    args = parser.parse_args()
    if args.hops_child:
        asyncio.run(_serve_and_play(args.hops_child))
        return

    engine_runs = [engine_games(args.games)]
    runner_seconds, runner_cpu, finished = runner_games(args.games, args.concurrency)
    engine_runs.append(engine_games(args.games))
    decisions = engine_runs[0][2]
    engine_seconds = statistics.fmean(run[0] for run in engine_runs)
    engine_cpu = statistics.fmean(run[1] for run in engine_runs)
    runner_rate = finished / runner_seconds
    engine_rate = args.games / engine_seconds
    print(f"== throughput: greedy vs greedy at Qwirkle, {args.games} games, {cores} cores")
    print(
        f"botarena match --concurrency {args.concurrency}   {runner_rate:8.1f} games/s"
        f"  {_ms(runner_seconds / finished)}/game wall  {_ms(runner_cpu / finished)}/game CPU"
    )
    print(
        f"engine, in-process, one core      {engine_rate:8.1f} games/s"
        f"  {_ms(engine_seconds / args.games)}/game wall  {_ms(engine_cpu / args.games)}/game CPU"
        f"  ({decisions / args.games:.0f} decisions a game)"
    )
    print(f"runner/engine ratio: {runner_rate / engine_rate:.2f}  (target: >= 0.33)")
    cpu_ratio = (runner_cpu / finished) / (engine_cpu / args.games)
    # On `cores` cores the runner plays at most cores / (its CPU per game) games per
    # second, so the ratio cannot pass cores / cpu_ratio (the engine on a core of its own).
    print(
        f"runner CPU per game / engine CPU per game: {cpu_ratio:.1f}, so the ratio cannot "
        f"pass {cores / cpu_ratio:.2f} on {cores} cores"
    )

    if args.hop_games:
        timed = asyncio.run(_watch_hops(args.hop_games))
        parts = _hop_split(timed["server"], timed["client"], timed["engine"], timed["encoding"])
        decisions = len(timed["client"]["thought"])
        print(f"\n== one decision, one game at a time ({len(parts['hop'])} hops, medians)")
        print(f"hop: submit -> next seat's submit {_us(parts['hop'])}")
        print(f"  server (engine excluded)        {_us(parts['server'])}")
        print(f"  engine                          {_us(parts['engine'])}")
        print(f"  transport (grpc, protobuf, os)  {_us(parts['transport'])}")
        print(f"  SDK                             {_us(parts['sdk'])}")
        print(f"  server, other streams, meanwhile{_us(parts['others'])}")
        print(f"  bot (choose_move)               {_us(parts['bot'])}")
        print(
            f"CPU per decision: the worker (server and bots) "
            f"{timed['cpu'] / decisions * 1e6:.0f} us, the runner's spectator "
            f"{timed['watch_cpu'] / decisions * 1e6:.0f} us"
        )


if __name__ == "__main__":
    main()
