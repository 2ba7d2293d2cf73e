"""How every client of the wire reads an event stream and reconnects to it.

This module is the client package's runtime for streams: the hand-written
Client uses it, and so will clients generated from the routes a spec
declares. It reads Server-Sent Events as the standard parses them, reads
numbers as the TypeScript client does (ASCII digits only: ``"²".isdigit()``
is true, and ``int("²")`` raises a bare ValueError), and keeps a follow's
resume point and its retry budget (decision 0158): a budget of ``retries``
reconnections in a row, refilled only by progress, an output frame that
carries bytes past the point the connection resumed from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

MAX_DIGITS: Final = 9
"""MAX_DIGITS is the most digits a number on the wire has here: more say
nothing (a retry of 10⁹ ms is 11 days), and Python's int() refuses 4,300."""


def digits(text: str) -> int | None:
    """Digits is the value of text when it is 1 to MAX_DIGITS ASCII digits.

    Anything else (a sign, a fraction, spaces, a superscript or another
    script's digit) is None, as the TypeScript client's /^\\d{1,9}$/ has it.
    """
    if 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit():
        return int(text)
    return None


def retry_after(header: str | None) -> float | None:
    """Retry_after is the seconds a Retry-After header asks to wait; None when
    it does not say so in digits (the wire never sends an HTTP date)."""
    if header is None:
        return None
    seconds = digits(header)
    return float(seconds) if seconds is not None else None


@dataclass
class Event:
    """An Event is one dispatched event of a stream: its name and data lines."""

    event: str = "message"
    data: list[str] = field(default_factory=list)


_PRINTABLE: Final = re.compile("[\x20-\x7e]*")


class EventReader:
    """An EventReader turns the lines of an event stream into events.

    It keeps what the stream said for the next connection: the last event id
    and the reconnection delay a retry field asked for, in milliseconds. An
    id a header cannot carry as it came (anything but printable ASCII) is
    ignored, as by the TypeScript client, whose fetch would refuse it.
    """

    def __init__(self, last_id: str | None = None) -> None:
        self.current = Event()
        self.last_id = last_id
        self.retry_ms: int | None = None

    def line(self, text: str) -> Event | None:
        """Line reads one line; it returns the event a blank line completes."""
        if text == "":
            ev, self.current = self.current, Event()
            return ev if ev.data else None
        if text.startswith(":"):
            return None  # a comment: the server's keep-alive
        name, _, value = text.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self.current.event = value
        elif name == "data":
            self.current.data.append(value)
        elif name == "id" and _PRINTABLE.fullmatch(value):
            self.last_id = value
        elif name == "retry" and (ms := digits(value)) is not None:
            self.retry_ms = ms
        return None


FRAMES: Final = ("opened", "output", "status")
"""FRAMES are the events of a follow stream that carry a frame."""


class Resume:
    """A Resume is what a follow keeps across its connections.

    It holds the stream's reader (the resume point and the server's delay)
    and the retry budget: ``retries`` reconnections in a row that make no
    progress, after which the last failure is raised.
    """

    def __init__(self, last_id: str | None, retries: int) -> None:
        self.reader = EventReader(last_id)
        self.retries = retries
        self.failures = 0
        self._resumed_from = last_id

    def headers(self) -> dict[str, str]:
        """The headers of the next connection: where to resume from."""
        self._resumed_from = self.reader.last_id
        h = {"Accept": "text/event-stream"}
        if self.reader.last_id is not None:
            h["Last-Event-ID"] = self.reader.last_id
        return h

    def dispatched(self, ev: Event) -> bool:
        """Dispatched reports whether ev carries a frame, noting progress.

        Only an output frame that moved the resume point refills the budget:
        every connection opens with an opened frame, so a server that drops
        each one right after it makes none.
        """
        if ev.event not in FRAMES:
            return False
        if ev.event == "output" and self.reader.last_id != self._resumed_from:
            self.failures = 0
        return True

    def failed(self, err: Exception) -> float:
        """How long to wait, in seconds, before reconnecting after err.

        It raises err once the budget is spent: more than ``retries``
        failures in a row without progress.
        """
        self.failures += 1
        if self.failures > self.retries:
            raise err
        if self.reader.retry_ms is not None:
            return self.reader.retry_ms / 1000
        return float(min(0.05 * 2**self.failures, 2.0))
