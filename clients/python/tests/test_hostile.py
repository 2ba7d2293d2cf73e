"""The hostile input of spec/testdata/client-hostile.json, which the
TypeScript client reads alike (tools/ts/client_test.ts), and a follow that
gives up."""

from __future__ import annotations

import json
import pathlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from jobgen_client import AsyncClient, Client, WireError
from jobgen_vocab import jobs
from jobgen_vocab.runtime import Resume

TABLE: dict[str, Any] = json.loads(
    (
        pathlib.Path(__file__).parents[3] / "spec" / "testdata" / "client-hostile.json"
    ).read_text()
)
JOB = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
SNAPSHOT = (
    '{"id":"' + JOB + '","name":"bash-1","kind":"bash","label":"ls","ordinal":1,'
    '"record":true,"status":"running","startedAt":1}'
)
OPENED = (
    'event: opened\nid: 0\ndata: {"frame":"opened","job":' + SNAPSHOT + ","
    '"from":0,"earliest":0,"total":0}\n\n'
)


@pytest.mark.parametrize("row", TABLE["events"], ids=lambda r: r["why"])
def test_hostile_event_fields_are_read_as_typescript_reads_them(
    row: dict[str, Any],
) -> None:
    answers = [
        httpx.Response(
            200,
            headers={"Content-Type": "text/event-stream"},
            content=("\n".join(row["lines"]) + "\n\n").encode(),
        ),
        httpx.Response(404, json={"error": "no such job"}),
    ]
    sent: list[httpx.Request] = []

    def answer(r: httpx.Request) -> httpx.Response:
        sent.append(r)
        return answers[len(sent) - 1]

    waits: list[float] = []
    transport = httpx.MockTransport(answer)
    http = httpx.Client(transport=transport)
    with Client("http://127.0.0.1:1", http=http, sleep=waits.append) as c:
        with pytest.raises(WireError):
            list(c.follow_job(jobs.JobID(JOB)))
    assert sent[1].headers.get("last-event-id") == row["lastEventId"]
    default = Resume(None, 1, True).failed(RuntimeError())
    assert waits == [row["retryMs"] / 1000 if row["retryMs"] is not None else default]


@pytest.mark.parametrize("row", TABLE["retryAfter"], ids=lambda r: r["why"])
def test_hostile_retry_after_is_read_as_typescript_reads_it(
    row: dict[str, Any],
) -> None:
    header = row["header"].encode()  # sent as UTF-8 bytes
    transport = httpx.MockTransport(
        lambda r: httpx.Response(
            503, json={"error": "busy"}, headers={"Retry-After": header}
        )
    )
    with Client("http://127.0.0.1:1", http=httpx.Client(transport=transport)) as c:
        with pytest.raises(WireError) as e:
            c.list_jobs()
    assert e.value.retry_after == row["seconds"]


class OpenedThenDrop(httpx.BaseTransport):
    """A server that drops every follow connection right after its opened frame."""

    def __init__(self) -> None:
        self.connections = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.connections += 1
        if self.connections > 50:
            raise AssertionError("the follow reconnected 50 times")

        class Drop(httpx.SyncByteStream):
            def __iter__(self) -> Iterator[bytes]:
                yield b"retry: 1\n" + OPENED.encode()
                raise httpx.ReadError("connection dropped by the test")

        return httpx.Response(
            200, headers={"Content-Type": "text/event-stream"}, stream=Drop()
        )


def test_a_follow_gives_up_when_connections_bring_only_the_opened_frame() -> None:
    transport = OpenedThenDrop()
    with Client("http://127.0.0.1:1", http=httpx.Client(transport=transport)) as c:
        with pytest.raises(httpx.ReadError):
            list(c.follow_job(jobs.JobID(JOB), retries=3))
    assert transport.connections == 4  # the first and three retries


class AsyncOpenedThenDrop(httpx.AsyncBaseTransport):
    """OpenedThenDrop for the asynchronous client."""

    def __init__(self) -> None:
        self.connections = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.connections += 1
        if self.connections > 50:
            raise AssertionError("the follow reconnected 50 times")

        class Drop(httpx.AsyncByteStream):
            async def __aiter__(self) -> AsyncIterator[bytes]:
                yield b"retry: 1\n" + OPENED.encode()
                raise httpx.ReadError("connection dropped by the test")

        return httpx.Response(
            200, headers={"Content-Type": "text/event-stream"}, stream=Drop()
        )


@pytest.mark.anyio
async def test_an_async_follow_gives_up_as_a_follow_does() -> None:
    transport = AsyncOpenedThenDrop()
    http = httpx.AsyncClient(transport=transport)
    async with AsyncClient("http://127.0.0.1:1", http=http) as c:
        with pytest.raises(httpx.ReadError):
            async for _ in c.follow_job(jobs.JobID(JOB), retries=2):
                pass
    await http.aclose()
    assert transport.connections == 3


class MovingOpenedThenDrop(httpx.BaseTransport):
    """A server whose every connection opens past the last (a lossy resume)
    or sends the whole roster again, then drops."""

    def __init__(self) -> None:
        self.connections = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.connections += 1
        if self.connections > 50:
            raise AssertionError("the stream reconnected 50 times")
        n = self.connections

        class Drop(httpx.SyncByteStream):
            def __iter__(self) -> Iterator[bytes]:
                yield b"retry: 1\n" + OPENED.replace("id: 0", f"id: {10 * n}").encode()
                yield b"event: roster\ndata: []\n\n"
                raise httpx.ReadError("connection dropped by the test")

        return httpx.Response(
            200, headers={"Content-Type": "text/event-stream"}, stream=Drop()
        )


def follow(c: Client) -> None:
    list(c.follow_job(jobs.JobID(JOB), retries=3))


def watch(c: Client) -> None:
    list(c.watch_jobs(retries=3))


def test_a_connections_first_event_is_no_progress_even_when_it_moves() -> None:
    for read in (follow, watch):
        transport = MovingOpenedThenDrop()
        with Client("http://127.0.0.1:1", http=httpx.Client(transport=transport)) as c:
            with pytest.raises(httpx.ReadError):
                read(c)
        assert transport.connections == 4  # the first and three retries
