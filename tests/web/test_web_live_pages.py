# mypy: disable-error-code="import-untyped"
"""What live pages cost the matches, over real HTTP: a page that opens or closes encodes
nothing again, a closed page frees its place under the cap at once, and the HTTP side
(refusals over the cap, the drop of a stalled page) goes on while the matches' loop is
busy: it runs on a loop of its own."""

from __future__ import annotations

import contextlib
import http.client
import threading
from collections.abc import Iterator

from botarena.server.service.web import WebSettings
from botarena.v1 import match_pb2

from .conftest import EventReader, Table, WebServer, serve_web, stalled_page, wait_until


def _read_until(server: WebServer, match_id: str, version: int) -> None:
    """Open a page's event stream, read it until the step of ``version``, then close it
    (a reader leaving mid-stream)."""
    host, port = server.url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        connection.request("GET", f"/matches/{match_id}/events")
        response = connection.getresponse()
        assert response.status == 200
        for raw in response:
            if raw.decode().rstrip("\n") == f"id: {version}":
                return
        raise AssertionError(f"the stream ended before version {version}")
    finally:
        connection.close()


def test_pages_that_come_and_go_never_encode_the_match_again(web_server: WebServer) -> None:
    table = Table(web_server)
    try:
        for _ in range(5):
            version = table.step(3).state_version
            _read_until(web_server, table.match_id, version)
        final = table.finish()
        assert final.state == match_pb2.Match.STATE_FINISHED
        # Pages of the finished match, opened after the end: the feed is still there.
        for _ in range(2):
            events = EventReader(web_server.url, f"/matches/{table.match_id}/events").start()
            steps = events.wait()
            assert [event.id for event in steps[:-1]] == [
                str(v) for v in range(final.state_version + 1)
            ]
        feeds = web_server.web.feeds
        assert feeds.made == 1
        assert feeds.encoded == final.state_version + 1  # each log entry once
    finally:
        table.close()


def test_a_page_that_closes_frees_its_place_under_the_cap_at_once() -> None:
    with serve_web(http_settings=WebSettings(max_streams=1)) as server:
        table = Table(server)
        try:
            _read_until(server, table.match_id, 0)
            # No move meanwhile: nothing is written to the closed page (the first
            # keep-alive comes after 15 s), and its place is free all the same.
            assert wait_until(lambda: server.web.feeds.readers == 0, timeout=10)
            version = table.match().state_version
            _read_until(server, table.match_id, version)
            assert server.web.refused == 0
        finally:
            table.close()


@contextlib.contextmanager
def _matches_loop_blocked(server: WebServer) -> Iterator[None]:
    """Hold the server's loop (where the matches are) in a blocking wait meanwhile."""
    release = threading.Event()
    blocked = threading.Event()

    def block() -> None:
        blocked.set()
        release.wait(60)

    server.loop.call_soon_threadsafe(block)
    assert blocked.wait(60)
    try:
        yield
    finally:
        release.set()


def test_a_page_over_the_cap_is_refused_without_the_matches_loop() -> None:
    with serve_web(http_settings=WebSettings(max_streams=1)) as server:
        table = Table(server)
        try:
            first = EventReader(server.url, f"/matches/{table.match_id}/events").start()
            with _matches_loop_blocked(server):
                refused = EventReader(server.url, f"/matches/{table.match_id}/events").start()
                refused.wait()
                assert refused.status == 503
                assert refused.response_headers["Retry-After"] == "10"
                assert server.web.refused == 1
            table.finish()  # the page that got in reads on to the end
            assert first.wait()[-1].event == "end"
        finally:
            table.close()


def test_a_stalled_page_is_dropped_while_the_matches_loop_is_busy() -> None:
    settings = WebSettings(write_timeout=0.5, max_unsent=4096)
    with serve_web(http_settings=settings) as server:
        table = Table(server, names=("greedy", "another greedy"))
        try:
            version = table.step(40).state_version  # a catch-up larger than its buffers
            sock = stalled_page(server, table.match_id, receive_buffer=1024)
            try:
                assert wait_until(lambda: server.web.feeds.readers == 1)
                # The feed encodes on the matches' loop: all of it before that loop is
                # held, so that the page has its catch-up to be sent (and to stall on).
                assert wait_until(lambda: server.web.feeds.encoded > version)
                with _matches_loop_blocked(server):
                    # The write times out and the page is dropped on the web UI's loop.
                    assert wait_until(lambda: server.web.dropped == 1)
                    assert server.web.feeds.readers == 0
            finally:
                sock.close()
            # The matches go on, and so do other pages.
            reader = EventReader(server.url, f"/matches/{table.match_id}/events").start()
            final = table.finish()
            events = reader.wait()
            assert [event.id for event in events[:-1]] == [
                str(v) for v in range(final.state_version + 1)
            ]
        finally:
            table.close()
