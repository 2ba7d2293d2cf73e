"""The client against the real Go handler: roster, follow, kill, history."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from conftest import env
from jobgen_client import AsyncClient, Client, WireError
from jobgen_vocab.jobs import OpenedFrame, OutputFrame, StatusFrame
from jobgen_vocab.wire import Interval


def test_roster_lists_the_sessions_jobs_and_no_other(client: Client) -> None:
    ids = {job.id for job in client.roster()}
    assert {env("DONE"), env("LIVE"), env("VICTIM")} <= ids
    assert env("FOREIGN") not in ids


def test_a_job_of_another_session_is_not_found(client: Client) -> None:
    with pytest.raises(WireError) as e:
        client.job(env("FOREIGN"))
    assert e.value.status == 404 and e.value.reason == "no such job"
    assert "no such job" in str(e.value)


def test_a_refusal_raises_the_reason_its_error_body_gives(
    url: str, headers: dict[str, str]
) -> None:
    with Client(url, headers=headers) as client:
        with pytest.raises(WireError) as e:
            next(client.follow(env("VICTIM")))
    assert e.value.status == 409 and e.value.reason == "job keeps no record"
    # A name the server does not answer for, as a DNS-rebound page sends.
    with Client(url, headers={**headers, "Host": "rebound.example"}) as client:
        with pytest.raises(WireError) as e:
            client.roster()
    assert e.value.status == 403
    assert '"rebound.example" is not a name this server answers for' in e.value.reason


def test_a_refusal_that_is_no_error_body_raises_its_text() -> None:
    answers = {
        "/api/jobs": httpx.Response(502, text="bad gateway\n"),
        "/api/history": httpx.Response(
            429, json={"error": "too many streams"}, headers={"Retry-After": "3"}
        ),
        "/api/jobs/x": httpx.Response(500),
    }
    transport = httpx.MockTransport(lambda r: answers[r.url.path])
    with Client("http://127.0.0.1:1", http=httpx.Client(transport=transport)) as c:
        with pytest.raises(WireError) as e:
            c.roster()
        assert (e.value.status, e.value.reason, e.value.retry_after) == (
            502,
            "bad gateway",
            None,
        )
        with pytest.raises(WireError) as e:
            c.history()
        assert (e.value.status, e.value.reason, e.value.retry_after) == (
            429,
            "too many streams",
            3.0,
        )
        with pytest.raises(WireError) as e:
            c.job("x")
        assert (e.value.status, e.value.reason) == (500, "Internal Server Error")


def test_follow_reads_a_settled_job_to_its_status(client: Client) -> None:
    frames = list(client.follow(env("DONE")))
    assert isinstance(frames[0], OpenedFrame)
    assert isinstance(frames[-1], StatusFrame) and frames[-1].job.status == "completed"
    text = "".join(
        c.text for f in frames if isinstance(f, OutputFrame) for c in f.chunks
    )
    assert text == "".join(f"line {i}\n" for i in range(10))
    assert all(
        c.channel == "stdout"
        for f in frames
        if isinstance(f, OutputFrame)
        for c in f.chunks
    )


def test_follow_starts_at_an_offset(client: Client) -> None:
    frames = list(client.follow(env("DONE"), start=7))
    opened = frames[0]
    assert isinstance(opened, OpenedFrame) and opened.from_ == 7
    text = "".join(
        c.text for f in frames if isinstance(f, OutputFrame) for c in f.chunks
    )
    assert text == "".join(f"line {i}\n" for i in range(10))[7:]


class CutStream(httpx.HTTPTransport):
    """A transport that drops the first follow stream after some events."""

    def __init__(self, events: int) -> None:
        super().__init__()
        self.events = events
        self.follows: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if not request.url.path.endswith("/follow"):
            return response
        self.follows.append(request)
        if len(self.follows) > 1:
            return response
        stream = response.stream
        events = self.events

        class Cut(httpx.SyncByteStream):
            def __iter__(self) -> Iterator[bytes]:
                buf = b""
                for chunk in stream:  # type: ignore[union-attr]
                    buf += chunk
                    # Pass whole events on, then drop the connection.
                    while (end := buf.find(b"\n\n")) >= 0:
                        event, buf = buf[: end + 2], buf[end + 2 :]
                        if not event.startswith(b":"):
                            yield event
                            nonlocal_events[0] -= 1
                            if nonlocal_events[0] == 0:
                                raise httpx.ReadError("connection dropped by the test")

            def close(self) -> None:
                stream.close()  # type: ignore[union-attr]

        nonlocal_events = [events]
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=Cut(),
            request=request,
        )


def test_follow_resumes_with_last_event_id_after_a_drop(
    url: str, headers: dict[str, str]
) -> None:
    transport = CutStream(events=3)
    with Client(url, headers=headers, http=httpx.Client(transport=transport)) as client:
        frames = list(client.follow(env("LIVE")))
    assert len(transport.follows) >= 2
    first, second = transport.follows[0], transport.follows[1]
    assert "last-event-id" not in first.headers
    resumed = int(second.headers["last-event-id"])
    assert resumed > 0
    opens = [f for f in frames if isinstance(f, OpenedFrame)]
    assert len(opens) == 2 and opens[1].from_ == resumed
    text = "".join(
        c.text for f in frames if isinstance(f, OutputFrame) for c in f.chunks
    )
    assert text == "".join(f"tick {i}\n" for i in range(100))
    assert isinstance(frames[-1], StatusFrame)


def test_kill_stops_a_running_job(client: Client) -> None:
    result = client.kill(env("VICTIM"), "the test is done with it")
    assert result.result == "requested"
    assert result.job.status in ("stopping", "killed")


def test_history_has_an_interval_per_job(client: Client) -> None:
    intervals: dict[str, Interval] = {iv.job_id: iv for iv in client.history()}
    done = intervals[env("DONE")]
    assert done.complete and done.status == "completed" and done.detail == "ten lines"
    assert done.kind == "py" and done.settled_at >= done.registered_at
    assert env("FOREIGN") not in intervals


def test_archived_history_serves_the_intervals_and_no_archived_run(
    client: Client,
) -> None:
    history = client.archived_history()
    assert env("DONE") in {iv.job_id for iv in history.intervals}
    assert history.archived == []


@pytest.mark.anyio
async def test_the_async_client_reads_follows_and_kills(
    url: str, headers: dict[str, str]
) -> None:
    async with AsyncClient(url, headers=headers) as client:
        assert env("DONE") in {job.id for job in await client.roster()}
        frames = [f async for f in client.follow(env("DONE"), start=0)]
        text = "".join(
            c.text for f in frames if isinstance(f, OutputFrame) for c in f.chunks
        )
        assert text.startswith("line 0\n") and isinstance(frames[-1], StatusFrame)
        killed = await client.kill(env("VICTIM2"))
        assert killed.result == "requested"
        with pytest.raises(WireError) as e:
            await client.kill(env("FOREIGN"))
        assert e.value.status == 404
        assert env("DONE") in {iv.job_id for iv in await client.history()}
        history = await client.archived_history()
        assert env("DONE") in {iv.job_id for iv in history.intervals}
