"""The generated client against the real Go handler, every route of it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from conftest import env
from jobgen_client import AsyncClient, Client, WireError
from jobgen_vocab import jobs
from jobgen_vocab.jobs import OpenedFrame, OutputFrame, StatusFrame
from jobgen_vocab.wire import (
    InputRequest,
    Interval,
    KillAllRequest,
    KillRequest,
    WatchViewRequest,
)


def test_roster_lists_the_sessions_jobs_and_no_other(client: Client) -> None:
    ids = {p.item.id for p in client.list_jobs()}
    assert {env("DONE"), env("LIVE"), env("VICTIM")} <= ids
    assert env("FOREIGN") not in ids


def test_a_job_of_another_session_is_not_found(client: Client) -> None:
    with pytest.raises(WireError) as e:
        client.get_job(jobs.JobID(env("FOREIGN")))
    assert e.value.status == 404 and e.value.reason == "no such job"
    assert "no such job" in str(e.value)


def test_a_refusal_raises_the_reason_its_error_body_gives(
    url: str, headers: dict[str, str]
) -> None:
    with Client(url, headers=headers) as client:
        with pytest.raises(WireError) as e:
            next(client.follow_job(jobs.JobID(env("VICTIM"))))
    assert e.value.status == 409 and e.value.reason == "job keeps no record"
    # A name the server does not answer for, as a DNS-rebound page sends.
    with Client(url, headers={**headers, "Host": "rebound.example"}) as client:
        with pytest.raises(WireError) as e:
            client.list_jobs()
    assert e.value.status == 403
    assert '"rebound.example" is not a name this server answers for' in e.value.reason


def test_a_refusal_that_is_no_error_body_raises_its_text() -> None:
    answers = {
        "/api/jobs": httpx.Response(502, text="bad gateway\n"),
        "/api/history": httpx.Response(
            429, json={"error": "too many streams"}, headers={"Retry-After": "3"}
        ),
        "/api/jobs/6ba7b810-9dad-11d1-80b4-00c04fd430c8": httpx.Response(500),
    }
    transport = httpx.MockTransport(lambda r: answers[r.url.path])
    with Client("http://127.0.0.1:1", http=httpx.Client(transport=transport)) as c:
        with pytest.raises(WireError) as e:
            c.list_jobs()
        assert (e.value.status, e.value.reason, e.value.retry_after) == (
            502,
            "bad gateway",
            None,
        )
        with pytest.raises(WireError) as e:
            c.list_history()
        assert (e.value.status, e.value.reason, e.value.retry_after) == (
            429,
            "too many streams",
            3.0,
        )
        with pytest.raises(WireError) as e:
            c.get_job(jobs.JobID("6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
        assert (e.value.status, e.value.reason) == (500, "Internal Server Error")


def test_follow_reads_a_settled_job_to_its_status(client: Client) -> None:
    frames = list(client.follow_job(jobs.JobID(env("DONE"))))
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
    frames = list(client.follow_job(jobs.JobID(env("DONE")), from_=7))
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
        frames = list(client.follow_job(jobs.JobID(env("LIVE"))))
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
    result = client.kill_job(
        jobs.JobID(env("VICTIM")), KillRequest(reason="the test is done")
    )
    assert result.result == "requested"
    assert result.job.status in ("stopping", "killed")


def test_history_has_an_interval_per_job(client: Client) -> None:
    intervals: dict[str, Interval] = {
        p.item.job_id: p.item for p in client.list_history()
    }
    done = intervals[env("DONE")]
    assert done.complete and done.status == "completed" and done.detail == "ten lines"
    assert done.kind == "py" and done.settled_at >= done.registered_at
    assert env("FOREIGN") not in intervals


def test_a_jobs_page_is_refused_where_no_history_is_kept(client: Client) -> None:
    # The test server keeps no journal of job facts (WithJobFacts):
    # the route answers its refusal, an ErrorBody decoded as WireError.
    with pytest.raises(WireError) as e:
        client.job_history(jobs.JobID(env("DONE")))
    assert e.value.status == 404 and e.value.reason == "no history is kept"


def test_nothing_waits_for_a_slot(client: Client) -> None:
    assert client.list_waiting() == []


def test_search_history_pages_the_sessions_intervals(client: Client) -> None:
    page = client.search_history(kind="py", limit=100)
    ids = {iv.job_id for iv in page.intervals}
    assert env("DONE") in ids and env("FOREIGN") not in ids
    assert page.total == len(page.intervals)


def test_a_bulk_stop_of_another_sessions_job_says_no_such_job(client: Client) -> None:
    answer = client.kill_jobs(
        KillAllRequest(ids=[jobs.JobID(env("FOREIGN"))], reason="not mine")
    )
    assert len(answer.results) == 1
    assert answer.results[0].error == "no such job" and answer.results[0].job is None


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
        assert env("DONE") in {p.item.id for p in await client.list_jobs()}
        frames = [f async for f in client.follow_job(jobs.JobID(env("DONE")), from_=0)]
        text = "".join(
            c.text for f in frames if isinstance(f, OutputFrame) for c in f.chunks
        )
        assert text.startswith("line 0\n") and isinstance(frames[-1], StatusFrame)
        killed = await client.kill_job(jobs.JobID(env("VICTIM2")))
        assert killed.result == "requested"
        with pytest.raises(WireError) as e:
            await client.kill_job(jobs.JobID(env("FOREIGN")))
        assert e.value.status == 404
        assert env("DONE") in {p.item.job_id for p in await client.list_history()}
        history = await client.archived_history()
        assert env("DONE") in {iv.job_id for iv in history.intervals}


def test_get_job_answers_the_job_with_no_placement_on_one_host(client: Client) -> None:
    placed = client.get_job(jobs.JobID(env("DONE")))
    assert placed.item.id == env("DONE") and placed.item.status == "completed"
    assert placed.extra.host is None and not placed.extra.lost


def test_watch_jobs_streams_the_roster(client: Client) -> None:
    roster = next(iter(client.watch_jobs()))
    ids = {p.item.id for p in roster}
    assert {env("DONE"), env("VICTIM")} <= ids and env("FOREIGN") not in ids


def test_send_input_types_into_the_terminal(client: Client) -> None:
    answer = client.send_input(
        jobs.JobID(env("TERMINAL")), InputRequest(text="echo hi\n")
    )
    assert answer.job.id == env("TERMINAL")
    with pytest.raises(WireError) as e:
        client.send_input(jobs.JobID(env("DONE")), InputRequest(text="ls\n"))
    assert e.value.status == 409 and e.value.not_served is None


def test_download_record_answers_the_text_and_its_offsets(client: Client) -> None:
    raw = client.download_record(jobs.JobID(env("DONE")))
    assert raw.body == "".join(f"line {i}\n" for i in range(10)).encode()
    assert raw.x_record_earliest == 0 and raw.x_record_next == len(raw.body)
    assert raw.content_disposition.startswith('attachment; filename="')
    with pytest.raises(WireError) as e:
        client.download_record(jobs.JobID(env("VICTIM")))
    assert e.value.status == 409


def test_subagents_list_watch_and_history(client: Client) -> None:
    (node,) = client.list_subagents()
    assert node.id == env("CHILD") and node.depth == 1 and node.state == "settled"
    tree = next(iter(client.watch_subagents()))
    assert [n.id for n in tree] == [env("CHILD")]
    events = client.subagent_history(jobs.SessionID(env("CHILD")))
    assert [e.kind for e in events] == ["created", "residencyStarted"]
    with pytest.raises(WireError) as e:
        client.subagent_history(jobs.SessionID("someone-else/child"))
    assert e.value.status == 404 and e.value.reason == "no such subagent"


def test_a_route_the_handler_declines_names_itself(client: Client) -> None:
    with pytest.raises(WireError) as e:
        client.list_fleet_hosts()
    assert e.value.status == 404 and e.value.not_served == "ListFleetHosts"


def test_the_page_serves_its_index_and_modules(client: Client) -> None:
    assert b"<html" in client.page().lower()
    assert len(client.page("app.mjs")) > 0
    with pytest.raises(WireError) as e:
        client.page("no-such-file.mjs")
    assert e.value.status == 404


@pytest.mark.anyio
async def test_the_async_client_has_every_kind_of_answer(
    url: str, headers: dict[str, str]
) -> None:
    async with AsyncClient(url, headers=headers) as client:
        async for roster in client.watch_jobs():
            assert env("DONE") in {p.item.id for p in roster}
            break
        async for tree in client.watch_subagents():
            assert [n.id for n in tree] == [env("CHILD")]
            break
        raw = await client.download_record(jobs.JobID(env("DONE")))
        assert raw.body.startswith(b"line 0\n")
        assert (
            await client.get_job(jobs.JobID(env("DONE")))
        ).item.status == "completed"
        assert len(await client.subagent_history(jobs.SessionID(env("CHILD")))) == 2
        assert (await client.list_subagents())[0].id == env("CHILD")
        assert b"<html" in (await client.page()).lower()
        with pytest.raises(WireError) as e:
            await client.list_fleet_hosts()
        assert e.value.not_served == "ListFleetHosts"
        with pytest.raises(WireError) as e:
            await client.send_input(jobs.JobID(env("TERMINAL")), InputRequest(text=""))
        assert e.value.status == 400


def test_watch_carries_views_opened_and_closed_on_one_connection(
    client: Client,
) -> None:
    seen: set[str] = set()
    for event in client.watch(views="r=WatchJobs"):
        if event.watch is not None:
            stream = event.watch.stream
            request = WatchViewRequest(
                view="f", route="FollowJob", id=jobs.JobID(env("TERMINAL"))
            )
            assert client.open_view(stream, request).view == "f"
        elif event.view is not None:
            seen.add(event.view.view)
        if seen == {"r", "f"}:
            assert client.close_view(stream, "f").view == "f"
            break
    with pytest.raises(WireError) as e:
        client.close_view("no-such-stream", "f")
    assert e.value.status == 404
