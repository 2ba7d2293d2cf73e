"""A client of jobgen's job wire, the HTTP API package jobhttp serves.

The client is generated from the routes spec/wire.yaml declares
(jobgen_vocab.wire_client): Client is the synchronous API and AsyncClient the
asynchronous one, a method per route in snake case (list_jobs, watch_jobs,
get_job, follow_job, kill_job, send_input, download_record, list_history,
archived_history, list_subagents, watch_subagents, subagent_history,
list_fleet_hosts, page). A stream is an iterator of its decoded events that
resumes with Last-Event-ID when the connection drops; a refusal raises
WireError with the reason the server's error body gives. This package only
names them, so that `from jobgen_client import Client` keeps working.
"""

from jobgen_vocab.runtime import DecodeError, Placed, WireError
from jobgen_vocab.wire_client import AsyncClient, Client, DownloadRecordResponse

__all__ = [
    "AsyncClient",
    "Client",
    "DecodeError",
    "DownloadRecordResponse",
    "Placed",
    "WireError",
]
