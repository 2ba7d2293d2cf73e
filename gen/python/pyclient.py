"""The runtime of the clients jobgen generates from a spec's routes.

A module generated from a spec with an http section has a client module
beside it, <name>_client, whose Client and AsyncClient call each route over
httpx through the Caller and AsyncCaller of this module (decision 0203):
a request's path, query and body go out as the generated Go adapter reads
them, a refusal raises the runtime's WireError with what the refusal record
says, and a stream is read as Server-Sent Events that reconnect with
Last-Event-ID from the last id seen, within the retry budget (the
runtime's Resume). This module is apart from the runtime because it
imports httpx, which a package's models alone do not need.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import (
    AsyncGenerator,
    Awaitable,
    Callable,
    Generator,
    Mapping,
)
from typing import Final, Self
from urllib.parse import quote

import httpx

from .runtime import BYE, DecodeError, Event, Resume, refusal

Query = Mapping[str, str | None]
"""A Query is a request's query parameters as text; None leaves one out."""


def segment(value: str | int | bool) -> str:
    """Segment is a path parameter's value as one segment of the path, as text
    (see text) with every reserved byte escaped."""
    return quote(text(value) or "", safe="")


def text(value: str | int | bool | None) -> str | None:
    """Text is a parameter's value as a path or query holds it: a bool as true
    or false, an integer in canonical decimal, a string as it is; None stays
    None (a query parameter the request leaves out)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_DECIMAL: Final = re.compile(r"-?(0|[1-9][0-9]*)")


def header_int(headers: httpx.Headers, name: str) -> int:
    """Header_int is an integer header of a media answer; 0 when it is absent
    (the server leaves out a zero), a DecodeError when it is no canonical
    decimal."""
    value = headers.get(name)
    if value is None:
        return 0
    if not _DECIMAL.fullmatch(value):
        raise DecodeError("invalidValue", name, f"{name}: {value!r} is no integer")
    return int(value)


def header_bool(headers: httpx.Headers, name: str) -> bool:
    """Header_bool is a boolean header of a media answer; False when absent."""
    value = headers.get(name)
    if value is None or value == "false":
        return False
    if value == "true":
        return True
    raise DecodeError("invalidValue", name, f"{name}: {value!r} is not true or false")


_JSON: Final = {"Content-Type": "application/json"}


class _Base:
    """What both callers keep: where the server is and what every request sends."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str] | None,
    ) -> None:
        self._base = httpx.URL(base_url.rstrip("/") + "/")
        self._headers = dict(headers or {})

    def _refused(self, body: bytes) -> str:
        """The message of a refusal's body, as the spec's refusal record has it;
        a generated client overrides it."""
        raise DecodeError("invalidJSON", "$", "no refusal record is declared")

    def _check(self, r: httpx.Response) -> None:
        if not r.is_success:
            raise refusal(
                r.status_code, r.reason_phrase, r.content, r.headers, self._refused
            )

    def _request(
        self, method: str, path: str, query: Query | None, body: bytes | None
    ) -> httpx.Request:
        params = {k: v for k, v in (query or {}).items() if v is not None}
        headers = self._headers if body is None else {**self._headers, **_JSON}
        url = self._base.join(path)
        if params:
            url = url.copy_merge_params(params)
        return httpx.Request(method, url, headers=headers, content=body)

    def _connect(self, path: str, query: Query | None, r: Resume) -> httpx.Request:
        req = self._request("GET", path, query, None)
        req.headers.update(r.headers())
        return req


class StreamEnded(httpx.TransportError):
    """A StreamEnded is a stream the server closed before its end: a
    connection that dropped, as far as the stream is concerned."""


class Caller(_Base):
    """A Caller calls the routes of one server as one session, synchronously.

    The session is whatever the server's caller hook makes of the request:
    pass the credentials it reads as headers (or an httpx.Client set up with
    them, auth included). Sleep is how a stream waits before it reconnects.
    """

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        http: httpx.Client | None = None,
        timeout: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(base_url, headers)
        self._own = http is None
        self._http = http if http is not None else httpx.Client(timeout=timeout)
        self._sleep = sleep

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close closes the httpx client the Caller made, if it made one."""
        if self._own:
            self._http.close()

    def _call(
        self,
        method: str,
        path: str,
        query: Query | None = None,
        body: bytes | None = None,
    ) -> httpx.Response:
        r = self._http.send(self._request(method, path, query, body))
        self._check(r)
        return r

    def _stream(
        self,
        path: str,
        query: Query | None,
        names: frozenset[str],
        *,
        resumable: bool,
        retries: int,
    ) -> Generator[Event]:
        """The events named names of a stream, across its connections, until
        the caller stops reading; a refusal raises at once, a dropped
        connection (or the server's bye) reconnects within the budget."""
        f = Resume(None, retries, resumable)
        while True:
            try:
                r = self._http.send(self._connect(path, query, f), stream=True)
                try:
                    if not r.is_success:
                        r.read()
                        self._check(r)
                    for line in r.iter_lines():
                        if (ev := f.reader.line(line)) is None:
                            continue
                        if ev.event == BYE:
                            break
                        if ev.event in names:
                            f.dispatched(ev)
                            yield ev
                finally:
                    r.close()
                raise StreamEnded("the server closed the stream")
            except httpx.TransportError as e:
                self._sleep(f.failed(e))


class AsyncCaller(_Base):
    """An AsyncCaller is a Caller whose calls are coroutines."""

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        http: httpx.AsyncClient | None = None,
        timeout: float = 30.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        super().__init__(base_url, headers)
        self._own = http is None
        self._http = http if http is not None else httpx.AsyncClient(timeout=timeout)
        self._sleep = sleep

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Aclose closes the httpx client the AsyncCaller made, if it made one."""
        if self._own:
            await self._http.aclose()

    async def _call(
        self,
        method: str,
        path: str,
        query: Query | None = None,
        body: bytes | None = None,
    ) -> httpx.Response:
        r = await self._http.send(self._request(method, path, query, body))
        self._check(r)
        return r

    async def _stream(
        self,
        path: str,
        query: Query | None,
        names: frozenset[str],
        *,
        resumable: bool,
        retries: int,
    ) -> AsyncGenerator[Event]:
        """The events of a stream; see Caller._stream."""
        f = Resume(None, retries, resumable)
        while True:
            try:
                r = await self._http.send(self._connect(path, query, f), stream=True)
                try:
                    if not r.is_success:
                        await r.aread()
                        self._check(r)
                    async for line in r.aiter_lines():
                        if (ev := f.reader.line(line)) is None:
                            continue
                        if ev.event == BYE:
                            break
                        if ev.event in names:
                            f.dispatched(ev)
                            yield ev
                finally:
                    await r.aclose()
                raise StreamEnded("the server closed the stream")
            except httpx.TransportError as e:
                await self._sleep(f.failed(e))


def file_name(name: str) -> str:
    """File_name is the name of a file below a files route, each segment escaped."""
    return quote(name.lstrip("/"), safe="/")
