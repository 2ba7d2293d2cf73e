"""A client of jobgen's job wire, the HTTP API package jobhttp serves.

Client is the synchronous API and AsyncClient the asynchronous one; both read
the roster, follow a recording job's output as Server-Sent Events (resuming
with Last-Event-ID when the connection drops), kill a job and read the
session's execution intervals, typed with the models jobgen generates from
spec/jobs.yaml (jobgen_vocab.jobs).
"""

from ._client import AsyncClient, Client, WireError
from ._models import Interval, KillResult

__all__ = ["AsyncClient", "Client", "Interval", "KillResult", "WireError"]
