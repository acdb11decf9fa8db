# mypy: disable-error-code="import-untyped"
"""The web UI over real HTTP: its pages, 404s, public information only, the live event
stream (order, end, resume, the cap) and slow pages that never stall a match."""

from __future__ import annotations

import gzip
import html
import re
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from botarena.clients import AsyncLadderClient
from botarena.server.service.viewers.html import build_page
from botarena.server.service.web import WebSettings
from botarena.v1 import ladder_pb2, match_pb2

from .conftest import (
    EventReader,
    Table,
    WebServer,
    run_ladder,
    serve_web,
    stalled_page,
    wait_until,
)

# A seed whose digits appear nowhere else on the pages.
_SEED = 8_234_659_234_659_234_123


def _section(page: str, testid: str) -> str:
    """The part of ``page`` from the element with ``data-testid=testid`` to the next h2."""
    start = page.index(f'data-testid="{testid}"')
    end = page.find("<h2>", start)
    return page[start : end if end >= 0 else None]


def test_the_front_page_lists_running_and_finished_matches_with_links(
    web_server: WebServer,
) -> None:
    running = Table(web_server, names=("ann", "bob"))
    running.step(3)
    finished = Table(web_server, "qwixx", names=("cy", "dee"))
    finished.finish()
    page = web_server.page("/")
    live = _section(page, "running")
    recent = _section(page, "recent")
    assert f'href="/matches/{running.match_id}"' in live
    assert "ann" in live
    assert "bob" in live
    assert "● live" in live
    assert finished.match_id not in live
    assert f'href="/matches/{finished.match_id}"' in recent
    assert running.match_id not in recent
    only_qwixx = web_server.page("/?game=qwixx")
    assert finished.match_id in only_qwixx
    assert running.match_id not in only_qwixx


def _next_page(page: str, testid: str) -> str:
    """The address of the next page the link ``data-testid=testid`` leads to ("" if none)."""
    found = re.search(rf'<a href="([^"]+)" data-testid="{testid}">', page)
    return html.unescape(found.group(1)) if found else ""


def test_the_match_lists_go_page_by_page_with_list_matches_tokens() -> None:
    with serve_web(http_settings=WebSettings(page_size=2)) as server:
        running = [Table(server, "qwixx", names=("r", "s")) for _ in range(3)]
        finished = [Table(server, "qwixx", names=("f", "g")) for _ in range(3)]
        for table in finished:
            table.finish()
        ids = {table.match_id for table in running + finished}
        # Newest first: the last created of each list is on its first page.
        front = server.page("/")
        running_first = _rows(_section(front, "running"))
        recent_first = _rows(_section(front, "recent"))
        assert running_first == [t.match_id for t in running[::-1][:2]]
        assert recent_first == [t.match_id for t in finished[::-1][:2]]
        # The next page's link carries ListMatches' own token of that query.
        api = running[0].client.list_matches(page_size=2, state=match_pb2.Match.STATE_ACTIVE)
        following = _next_page(front, "running-next")
        query = parse_qs(urlsplit(following).query)
        assert query == {"state": ["running"], "page_token": [api.next_page_token]}
        second = server.page(following)
        assert _rows(_section(second, "running")) == [running[0].match_id]
        assert 'data-testid="recent"' not in second  # one list, its next page
        assert not _next_page(second, "running-next")  # and the last
        recent_second = _rows(_section(server.page(_next_page(front, "recent-next")), "recent"))
        assert recent_second == [finished[0].match_id]
        assert set(running_first + recent_first + [running[0].match_id] + recent_second) == ids
        # Kept by a game's filter; a token is refused for another list or game.
        only_qwixx = server.page("/?game=qwixx")
        assert "game=qwixx" in _next_page(only_qwixx, "running-next")
        token = query["page_token"][0]
        for wrong in (
            f"/?state=finished&page_token={token}",
            f"/?state=running&game=qwirkle&page_token={token}",
            "/?state=running&page_token=bm90IGEgdG9rZW4=",
            f"/?page_token={token}",
            "/?state=abandoned",
        ):
            status, _, body = server.get(wrong)
            assert status == 400, wrong
            assert b'data-testid="error"' in body
        for table in running:
            table.finish()


def _rows(section: str) -> list[str]:
    return re.findall(r'<tr data-match="([0-9a-f]+)"', section)


def test_a_leaderboard_goes_page_by_page(tmp_path: Path) -> None:
    with serve_web(tmp_path / "ladder.db", http_settings=WebSettings(page_size=1)) as server:
        ids = run_ladder(server, games=1)
        first = server.page("/ladder/qwirkle")
        top = re.findall(r'<tr data-bot="([0-9a-f]+)">', first)
        following = _next_page(first, "leaderboard-qwirkle-next")
        assert following.startswith("/ladder/qwirkle?page_token=")
        second = server.page(following)
        rest = re.findall(r'<tr data-bot="([0-9a-f]+)">', second)
        assert len(top) == len(rest) == 1
        assert sorted(top + rest) == sorted(ids.values())
        assert '<td class="ba-num">2</td>' in second  # rank 2
        assert not _next_page(second, "leaderboard-qwirkle-next")
        # Every game's first page, with its link on.
        assert _next_page(server.page("/ladder"), "leaderboard-qwirkle-next") == following
        token = parse_qs(urlsplit(following).query)["page_token"][0]
        assert server.get(f"/ladder/qwixx?page_token={token}")[0] == 400  # another game's

        async def api_token() -> str:
            async with AsyncLadderClient(target=server.address) as client:
                board = await client.get_leaderboard(match_pb2.GAME_QWIRKLE, page_size=1)
            return board.next_page_token

        assert server.run(api_token()) == token  # GetLeaderboard's pages, the same tokens


@pytest.mark.parametrize(
    "path",
    [
        "/matches/0123456789abcdef",
        "/matches/not-a-match",
        "/matches/0123456789abcdef/events",
        "/matches/0123456789abcdef/replay.binpb.gz",
        "/nothing-here",
        "/?game=chess",
        "/ladder",
        "/bots/0123",
    ],
)
def test_unknown_pages_answer_404_with_a_page(web_server: WebServer, path: str) -> None:
    status, kind, body = web_server.get(path)
    assert status == 404
    assert kind.startswith("text/html")
    assert b'data-testid="error"' in body


def test_names_are_text_not_markup(web_server: WebServer) -> None:
    hostile = '<script>alert("x")</script>'
    table = Table(web_server, names=(hostile, "b&b"))
    table.step(1)
    for path in ("/", f"/matches/{table.match_id}"):
        page = web_server.page(path)
        assert hostile not in page
        assert "b&b" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in web_server.page("/")


def test_no_rack_and_no_seed_leaves_while_a_match_runs(web_server: WebServer) -> None:
    table = Table(web_server, seed=_SEED)
    match = table.step(6)
    racks = [table.seats[seat].get_player_view(table.name).view.qwirkle.rack for seat in (0, 1)]
    assert all(racks)  # the seats' own views do hold racks
    front = web_server.page("/")
    page = web_server.page(f"/matches/{table.match_id}")
    assert str(_SEED) not in front + page
    events = EventReader(web_server.url, f"/matches/{table.match_id}/events").start()
    steps = events.wait_for_version(match.state_version)
    assert [event.id for event in steps] == [str(v) for v in range(match.state_version + 1)]
    for event in steps:
        chunk = event.replay()
        assert not chunk.match.config.HasField("seed")
        assert str(_SEED) not in event.data
        (step,) = chunk.steps
        assert not step.seat_views
        assert not step.spectator_view.qwirkle.rack  # a spectator's view: sizes only
        assert [seat.rack_size for seat in step.spectator_view.qwirkle.seats] != [0, 0]
        if step.event.HasField("match_started"):
            assert not step.event.match_started.match.config.HasField("seed")
    status, _, _ = web_server.get(f"/matches/{table.match_id}/replay.binpb.gz")
    assert status == 409
    table.finish()
    events.wait()


@pytest.mark.parametrize("game", ["qwirkle", "qwixx", "queendomino"])
def test_a_live_page_gets_only_what_a_spectators_stream_carries(
    web_server: WebServer, game: str
) -> None:
    table = Table(web_server, game, names=("ann", "bob"), seed=_SEED)
    match = table.step(8)
    version = match.state_version
    steps = EventReader(web_server.url, f"/matches/{table.match_id}/events").start()
    events = steps.wait_for_version(version)[: version + 1]
    # A spectator over gRPC: StreamMatchEvents without a seat token.
    spectator = []
    for event in table.client.stream_match_events(table.name):
        spectator.append(event)
        if event.state_version == version:
            break
    chunks = [event.replay() for event in events]
    assert len(chunks) == len(spectator) == version + 1
    for chunk, event in zip(chunks, spectator, strict=True):
        step = chunk.steps[0]
        if event.HasField("move_applied"):  # a step holds the view beside its event
            assert step.spectator_view == event.move_applied.view
            event.move_applied.ClearField("view")
        assert step.event == event
    for chunk in chunks:
        # No replay secrets, no format version: the match now and one spectator step.
        assert {field.name for field, _ in chunk.ListFields()} == {"match", "steps"}
        (step,) = chunk.steps
        assert {field.name for field, _ in step.ListFields()} == {"event", "spectator_view"}
        assert not chunk.match.config.HasField("seed")
        assert chunk.match.state == match_pb2.Match.STATE_ACTIVE
    assert chunks[-1].match == table.match()  # what GetMatch shows
    # The live page itself holds no step, no seed, and no replay is given out yet.
    page = web_server.page(f"/matches/{table.match_id}")
    assert str(_SEED) not in page
    assert 'id="botarena-replay"' in page
    assert re.search(r'<script id="botarena-replay"[^>]*>\s*</script>', page)
    status, _, body = web_server.get(f"/matches/{table.match_id}/replay.binpb.gz")
    assert status == 409
    assert b"still running" in body
    table.finish()
    assert steps.wait()[-1].event == "end"


def test_bot_names_and_owners_are_text_on_the_ladder_pages(tmp_path: Path) -> None:
    name = '"><script>alert(1)</script>'
    owner = "<img src=x onerror=alert(2)> & co"
    with serve_web(tmp_path / "ladder.db") as server:
        ladder = server.ladder
        assert ladder is not None

        async def register() -> str:
            return ladder.register(name, owner, "qwirkle")[0].bot_id

        bot_id = server.run(register())
        for path in ("/ladder", "/ladder/qwirkle", f"/bots/{bot_id}"):
            page = server.page(path)
            assert "<script>alert" not in page
            assert "<img src=x" not in page
            assert html.escape(name) in page
            assert html.escape(owner) in page
        assert f"<title>{html.escape(name)} · botarena</title>" in server.page(f"/bots/{bot_id}")


@pytest.mark.parametrize(
    "path",
    [
        "/matches/%3Cscript%3Ealert(1)%3C%2Fscript%3E",
        "/?game=%3Cscript%3Ealert(1)%3C%2Fscript%3E",
        "/ladder/%3Cscript%3Ealert(1)%3C%2Fscript%3E",
    ],
)
def test_what_an_address_holds_is_text_on_its_error_page(tmp_path: Path, path: str) -> None:
    with serve_web(tmp_path / "ladder.db") as server:
        status, _, body = server.get(path)
    assert status == 404
    page = body.decode()
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_nothing_ends_a_pages_script_or_style_early() -> None:
    # The pages' scripts and styles are the server's own files (no name, no match data:
    # those are escaped text, or base64): one that would close its element is refused.
    page = build_page("</title><script>alert(1)</script>", "<p>body</p>")
    assert "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    for css in ("</style><script>alert(1)</script>", "</STYLE >"):
        with pytest.raises(ValueError, match="closing"):
            build_page("title", "<p>body</p>", css=css)


def test_the_event_stream_carries_every_step_in_order_and_ends_with_the_match(
    web_server: WebServer,
) -> None:
    table = Table(web_server, "qwixx", names=("x", "y"))
    reader = EventReader(web_server.url, f"/matches/{table.match_id}/events").start()
    assert reader.status == 200
    assert reader.response_headers["Content-Type"].startswith("text/event-stream")
    final = table.finish()
    events = reader.wait()
    assert events[-1].event == "end"
    steps = [event.replay() for event in events[:-1]]
    assert [int(event.id) for event in events[:-1]] == list(range(final.state_version + 1))
    assert [chunk.steps[0].event.state_version for chunk in steps] == list(
        range(final.state_version + 1)
    )
    assert steps[0].steps[0].event.HasField("match_started")
    last = steps[-1]
    assert last.steps[0].event.HasField("match_finished")
    assert last.match.state == match_pb2.Match.STATE_FINISHED
    assert [r.score for r in last.match.outcome.results] == [r.score for r in final.outcome.results]


def test_a_reconnecting_page_gets_the_steps_after_its_last_event_id(
    web_server: WebServer,
) -> None:
    table = Table(web_server)
    match = table.step(5)
    reader = EventReader(
        web_server.url, f"/matches/{table.match_id}/events", headers={"Last-Event-ID": "3"}
    ).start()
    steps = reader.wait_for_version(match.state_version)
    assert [event.id for event in steps] == [str(v) for v in range(4, match.state_version + 1)]
    table.finish()
    assert reader.wait()[-1].event == "end"


def test_a_finished_match_shows_its_full_replay(web_server: WebServer) -> None:
    table = Table(web_server, names=("greedy", "random"))
    final = table.finish()
    page = web_server.page(f"/matches/{table.match_id}")
    assert "<script>botarena.start();</script>" in page
    assert "botarenaLive.start();" not in page
    status, kind, body = web_server.get(f"/matches/{table.match_id}/replay.binpb.gz")
    assert (status, kind) == (200, "application/octet-stream")
    replay = match_pb2.Replay.FromString(gzip.decompress(body))
    assert replay == table.client.get_replay(table.name)  # what GetReplay serves
    assert replay.match.config.seed == final.config.seed  # public after the end
    assert all(len(step.seat_views) == 2 for step in replay.steps)


def test_streams_over_the_cap_are_refused_with_503() -> None:
    with serve_web(http_settings=WebSettings(max_streams=1)) as server:
        table = Table(server)
        first = EventReader(server.url, f"/matches/{table.match_id}/events").start()
        second = EventReader(server.url, f"/matches/{table.match_id}/events").start()
        second.wait()
        assert (first.status, second.status) == (200, 503)
        assert second.response_headers["Retry-After"] == "10"
        table.finish()
        assert first.wait()[-1].event == "end"
        # The slot is free again once a page has gone.
        third = EventReader(server.url, f"/matches/{table.match_id}/events").start()
        assert third.status == 200
        assert third.wait()[-1].event == "end"


def test_pages_that_read_nothing_never_stall_the_match(web_server: WebServer) -> None:
    table = Table(web_server, "qwixx", names=("x", "y"))
    stalled = [stalled_page(web_server, table.match_id) for _ in range(20)]
    try:
        reader = EventReader(web_server.url, f"/matches/{table.match_id}/events").start()
        final = table.finish()  # every move is accepted while the stalled pages read nothing
        events = reader.wait()
        assert final.state == match_pb2.Match.STATE_FINISHED
        assert [event.id for event in events[:-1]] == [
            str(v) for v in range(final.state_version + 1)
        ]
        assert events[-1].event == "end"
    finally:
        for sock in stalled:
            sock.close()


def _read_to_the_end(sock: socket.socket) -> tuple[bytes, bool]:
    """Everything the server sent on ``sock`` until it closed it (waiting at most a
    minute for each read); and whether it reset the connection."""
    sock.settimeout(60)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        return received, True

    return received, False


def test_a_page_that_reads_nothing_is_dropped_while_the_others_go_on() -> None:
    # Small buffers and a short timeout, so that a Qwirkle match's stream (~60 kB)
    # fills them and the drop comes within the test; the defaults are 64 KiB and 10 s.
    settings = WebSettings(write_timeout=0.5, max_unsent=4096)
    with serve_web(http_settings=settings) as server:
        tables = [Table(server, names=("greedy", "another greedy")) for _ in range(3)]
        stalled = [stalled_page(server, table.match_id, receive_buffer=1024) for table in tables]
        try:
            readers = [
                EventReader(server.url, f"/matches/{table.match_id}/events").start()
                for table in tables
            ]
            playing = list(tables)
            while playing:  # the three matches move in turn, as on a busy server
                playing = [t for t in playing if t.step(4).state == match_pb2.Match.STATE_ACTIVE]
            finals = [table.match() for table in tables]
            assert all(final.state == match_pb2.Match.STATE_FINISHED for final in finals)
            for reader, final in zip(readers, finals, strict=True):
                events = reader.wait()
                assert [event.id for event in events[:-1]] == [
                    str(v) for v in range(final.state_version + 1)
                ]
                assert events[-1].event == "end"
            # Read only once dropped: reading would let a page that is merely slow go on.
            assert wait_until(lambda: server.web.dropped == len(stalled))
            for sock in stalled:
                received, _ = _read_to_the_end(sock)  # returns once the server has closed it
                assert received.startswith(b"HTTP/1.1 200 OK")
                assert b"event: step" in received
                assert b"event: end" not in received  # dropped before the end
            assert server.web.dropped == len(stalled)
            assert server.web.feeds.readers == 0
        finally:
            for sock in stalled:
                sock.close()


def test_the_ladder_pages_show_the_bots_of_a_ladder_run(tmp_path: Path) -> None:
    with serve_web(tmp_path / "ladder.db") as server:
        ids = run_ladder(server, games=2)
        board = server.page("/ladder/qwirkle")
        rows = re.findall(r'<tr data-bot="([0-9a-f]+)">', board)
        assert sorted(rows) == sorted(ids.values())
        assert "greedy" in board
        assert "random" in board
        assert ids["greedy"] in server.page("/ladder")
        bot = server.page(f"/bots/{ids['greedy']}")
        points = int(re.search(r'data-points="(\d+)"', bot).group(1))  # type: ignore[union-attr]
        assert points >= 2
        assert bot.count('<tr data-match="') >= 2
        # The chart is mu after each match, in the order they were rated, in a band of
        # one sigma, as ListBotMatches now serves them from what the ladder stored.
        bot_id = ids["greedy"]
        bot, (history, stored, mu_now) = _page_with_history(server, bot_id)
        rated = sorted(
            (
                (match.end_time.ToNanoseconds(), seat)
                for match in history.matches
                for seat in match.seats
                if seat.bot.name == f"bots/{bot_id}" and seat.HasField("mu_after")
            ),
            key=lambda item: item[0],
        )
        seats = [seat for _, seat in rated]
        assert len(seats) >= 2
        assert sorted((s.mu_after, s.sigma_after) for s in seats) == stored
        assert all(s.rating_after == pytest.approx(s.mu_after - 3 * s.sigma_after) for s in seats)
        drawn = re.findall(r'data-mu="([-\d.]+)" data-sigma="([-\d.]+)"', bot)
        assert drawn == [(f"{s.mu_after:.4f}", f"{s.sigma_after:.4f}") for s in seats]
        assert 'data-testid="sigma-band"' in bot
        assert seats[-1].mu_after == mu_now  # the last rated match left the bot's mu
        assert server.get("/ladder/chess")[0] == 404
        assert server.get("/bots/ffff")[0] == 404


_History = tuple[ladder_pb2.ListBotMatchesResponse, list[tuple[float, float]], float]


def _page_with_history(server: WebServer, bot_id: str) -> tuple[str, _History]:
    """The bot's page, and its matches as ListBotMatches answers, its (mu, sigma) after
    each rated match as the ladder stored them (sorted) and its mu now, all as they were
    when the page was drawn: the ladder's last matches may still be ending, so the page
    is taken again until the history is the same before and after it."""
    address = server.address
    ladder = server.ladder
    assert ladder is not None

    async def history() -> _History:
        async with AsyncLadderClient(target=address) as client:
            answer = await client.list_bot_matches(f"bots/{bot_id}", limit=500)
        stored = sorted(
            (seat.mu_after, seat.sigma_after)
            for record in ladder.bot_matches(bot_id, 500)
            for seat in record.seats
            if seat.bot_id == bot_id and seat.mu_after is not None and seat.sigma_after is not None
        )
        return answer, stored, ladder.bot(bot_id).mu

    taken: list[tuple[str, _History]] = []

    def take() -> bool:
        before = server.run(history())
        page = server.page(f"/bots/{bot_id}")
        if server.run(history()) != before:
            return False
        taken.append((page, before))
        return True

    assert wait_until(take)
    return taken[0]


def test_serve_prints_the_web_ui_address_and_serves_it(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "botarena.clients.cli", "serve", "--port", "0"]
    command += ["--db", ":memory:", "--http-port", "0", "--log-format", "json"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            url = ""
            for line in process.stdout:
                found = re.search(r'"web_ui": "(http://127\.0\.0\.1:\d+/)"', line)
                if found:
                    url = found.group(1)
                    break
            assert url
            import urllib.request

            with urllib.request.urlopen(url, timeout=30) as response:
                assert response.status == 200
                assert b"<h1>Matches</h1>" in response.read()
        finally:
            process.terminate()
            process.wait(30)


@pytest.mark.parametrize("host", ["0.0.0.0", "web.example"])
def test_serve_refuses_a_non_loopback_web_ui_without_insecure(
    host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from botarena.clients.cli import main

    assert main(["serve", "--db", ":memory:", "--http-port", "0", "--http-host", host]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert error.startswith(f"botarena serve: refusing to serve the web UI on {host}")


def test_pages_load_nothing_from_elsewhere(web_server: WebServer) -> None:
    table = Table(web_server)
    table.step(1)
    for path in ("/", f"/matches/{table.match_id}", "/?game=qwirkle"):
        page = web_server.page(path)
        assert "<link" not in page
        assert not re.search(r"\ssrc\s*=", page)  # no script, image or style by address
        assert "@import" not in page
        # The only absolute address is SVG's namespace name, which is never fetched.
        assert set(re.findall(r"https?://[^\s\"'`<>)]+", page)) <= {"http://www.w3.org/2000/svg"}
    table.finish()
