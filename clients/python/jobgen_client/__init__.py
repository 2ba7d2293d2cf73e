"""A client of jobgen's job wire, the HTTP API package jobhttp serves.

Client is the synchronous API and AsyncClient the asynchronous one; both read
the roster, follow a recording job's output as Server-Sent Events (resuming
with Last-Event-ID when the connection drops), kill a job and read the
session's execution intervals, typed with the models jobgen generates from
spec/jobs.yaml and spec/wire.yaml (jobgen_vocab.jobs, jobgen_vocab.wire).
A refusal raises WireError with the reason the server's error body gives.
"""

from ._client import AsyncClient, Client, WireError

__all__ = ["AsyncClient", "Client", "WireError"]
