"""The synchronous and asynchronous clients of the job wire."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from types import TracebackType
from typing import Self
from urllib.parse import quote

import httpx
from jobgen_vocab.jobs import FollowFrame, JobSnapshot, StatusFrame, decode_follow_frame
from jobgen_vocab.runtime import DecodeError, decode_list
from jobgen_vocab.wire import ErrorBody, History, Interval, KillRequest, KillResponse

from .sse import Resume, retry_after


class WireError(Exception):
    """A WireError is a request the server refused.

    A job of another session answers as one that does not exist: 404.
    """

    status: int
    """Status is the HTTP status code."""
    reason: str
    """Reason is what the server's error body (wire.ErrorBody) says, or the
    body's text when it is not one, or the status's phrase when it is empty."""
    retry_after: float | None
    """Retry_after is the seconds the server asks to wait before trying
    again (a 429 or 503 says); None when it does not say."""

    def __init__(
        self, status: int, reason: str, retry_after: float | None = None
    ) -> None:
        super().__init__(f"jobhttp: {status}: {reason}")
        self.status = status
        self.reason = reason
        self.retry_after = retry_after


def _check(r: httpx.Response) -> None:
    if r.is_success:
        return
    try:
        reason = ErrorBody.decode(r.content).error
    except DecodeError:
        reason = r.text.strip() or r.reason_phrase
    raise WireError(r.status_code, reason, retry_after(r.headers.get("Retry-After")))


def _job_path(job_id: str) -> str:
    return "api/jobs/" + quote(job_id, safe="")


class Client:
    """A Client calls the job wire of one server as one session.

    The session is whatever the server's Options.Session makes of the
    request: pass the credentials it reads as headers (or an httpx.Client set
    up with them, auth included).
    """

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        http: httpx.Client | None = None,
        timeout: float = 30.0,
    ) -> None:
        self._own = http is None
        self._http = http if http is not None else httpx.Client(timeout=timeout)
        self._base = httpx.URL(base_url.rstrip("/") + "/")
        self._headers = dict(headers or {})

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close closes the httpx client the Client made, if it made one."""
        if self._own:
            self._http.close()

    def _get(self, path: str) -> bytes:
        r = self._http.get(self._base.join(path), headers=self._headers)
        _check(r)
        return r.content

    def roster(self) -> list[JobSnapshot]:
        """Roster is the session's jobs, as GET /api/jobs lists them."""
        return decode_list(JobSnapshot, self._get("api/jobs"))

    def job(self, job_id: str) -> JobSnapshot:
        """Job is one job of the session; a WireError of 404 when there is none."""
        return JobSnapshot.decode(self._get(_job_path(job_id)))

    def kill(self, job_id: str, reason: str = "") -> KillResponse:
        """Kill asks the job's producer to stop, as POST /api/jobs/{id}/kill."""
        r = self._http.post(
            self._base.join(_job_path(job_id) + "/kill"),
            headers={**self._headers, "Content-Type": "application/json"},
            content=KillRequest(reason=reason).encode(),
        )
        _check(r)
        return KillResponse.decode(r.content)

    def history(self) -> list[Interval]:
        """History is the session's execution intervals, oldest first."""
        return decode_list(Interval, self._get("api/history"))

    def archived_history(self) -> History:
        """Archived_history is the session's history as the journal holds it.

        Its intervals are those the journal serves live, oldest first; its
        archived runs are the seqs of the session's stream that retention
        moved into an archive, each with the archive that holds it, as
        GET /api/history/archived answers.
        """
        return History.decode(self._get("api/history/archived"))

    def follow(
        self, job_id: str, *, start: int | None = None, retries: int = 5
    ) -> Iterator[FollowFrame]:
        """Follow yields the frames of a recording job's follow stream.

        It starts at byte offset start (by default where the server starts:
        the retained window) and ends after the status frame. When the
        connection drops it reconnects, sending the offset of the last output
        frame as Last-Event-ID, up to retries times in a row without progress
        (an output frame past where the connection resumed; decision 0158),
        then raises the last failure; the stream opens again with an opened
        frame, and an output frame says lossy when bytes fell out of the
        retained window meanwhile.
        """
        path = self._base.join(_job_path(job_id) + "/follow")
        f = Resume(None if start is None else str(start), retries)
        while True:
            try:
                with self._http.stream(
                    "GET", path, headers={**self._headers, **f.headers()}
                ) as r:
                    if not r.is_success:
                        r.read()
                        _check(r)
                    for line in r.iter_lines():
                        if (ev := f.reader.line(line)) is None:
                            continue
                        if ev.event == "bye":
                            break
                        if not f.dispatched(ev):
                            continue
                        frame = decode_follow_frame("\n".join(ev.data))
                        yield frame
                        if isinstance(frame, StatusFrame):
                            return
                raise httpx.RemoteProtocolError(
                    "the follow stream ended before its status frame"
                )
            except httpx.TransportError as e:
                time.sleep(f.failed(e))


class AsyncClient:
    """An AsyncClient is a Client whose calls are coroutines."""

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        http: httpx.AsyncClient | None = None,
        timeout: float = 30.0,
    ) -> None:
        self._own = http is None
        self._http = http if http is not None else httpx.AsyncClient(timeout=timeout)
        self._base = httpx.URL(base_url.rstrip("/") + "/")
        self._headers = dict(headers or {})

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        typ: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Aclose closes the httpx client the AsyncClient made, if it made one."""
        if self._own:
            await self._http.aclose()

    async def _get(self, path: str) -> bytes:
        r = await self._http.get(self._base.join(path), headers=self._headers)
        _check(r)
        return r.content

    async def roster(self) -> list[JobSnapshot]:
        """Roster is the session's jobs; see Client.roster."""
        return decode_list(JobSnapshot, await self._get("api/jobs"))

    async def job(self, job_id: str) -> JobSnapshot:
        """Job is one job of the session; see Client.job."""
        return JobSnapshot.decode(await self._get(_job_path(job_id)))

    async def kill(self, job_id: str, reason: str = "") -> KillResponse:
        """Kill asks the job's producer to stop; see Client.kill."""
        r = await self._http.post(
            self._base.join(_job_path(job_id) + "/kill"),
            headers={**self._headers, "Content-Type": "application/json"},
            content=KillRequest(reason=reason).encode(),
        )
        _check(r)
        return KillResponse.decode(r.content)

    async def history(self) -> list[Interval]:
        """History is the session's execution intervals; see Client.history."""
        return decode_list(Interval, await self._get("api/history"))

    async def archived_history(self) -> History:
        """Archived_history is the history with its archived runs; see Client.archived_history."""
        return History.decode(await self._get("api/history/archived"))

    async def follow(
        self, job_id: str, *, start: int | None = None, retries: int = 5
    ) -> AsyncIterator[FollowFrame]:
        """Follow yields the frames of a follow stream; see Client.follow."""
        path = self._base.join(_job_path(job_id) + "/follow")
        f = Resume(None if start is None else str(start), retries)
        while True:
            try:
                async with self._http.stream(
                    "GET", path, headers={**self._headers, **f.headers()}
                ) as r:
                    if not r.is_success:
                        await r.aread()
                        _check(r)
                    async for line in r.aiter_lines():
                        if (ev := f.reader.line(line)) is None:
                            continue
                        if ev.event == "bye":
                            break
                        if not f.dispatched(ev):
                            continue
                        frame = decode_follow_frame("\n".join(ev.data))
                        yield frame
                        if isinstance(frame, StatusFrame):
                            return
                raise httpx.RemoteProtocolError(
                    "the follow stream ended before its status frame"
                )
            except httpx.TransportError as e:
                await asyncio.sleep(f.failed(e))
