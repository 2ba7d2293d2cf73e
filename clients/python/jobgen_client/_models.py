"""The bodies of the wire that are not in a spec yet.

They follow jobhttp (the kill answer) and jobhistory.Interval; when
spec/wire.yaml declares them, they come from its generated module instead.
"""

from __future__ import annotations

from typing import Literal

from jobgen_vocab._runtime import Int64, Model
from jobgen_vocab.jobs import (
    JobID,
    JobSnapshot,
    JobStatus,
    SessionID,
    SettlementCause,
    ToolCallID,
)
from pydantic import Field


class KillResult(Model):
    """A KillResult is the answer to a kill: what happened, and the job after it."""

    result: Literal["requested", "alreadyFinished"]
    """Result is requested when the job was asked to stop, alreadyFinished when it had settled."""

    job: JobSnapshot
    """Job is the job after the kill."""


class Interval(Model):
    """An Interval is one job's execution, from its registered fact to its settled one."""

    job_id: JobID = Field(serialization_alias="jobId")
    """JobID identifies the job."""

    owner: SessionID
    """Owner is the owning session."""

    kind: str
    """Kind is the producer's kind."""

    label: str
    """Label is the job's label."""

    ordinal: Int64
    """Ordinal is the per-kind display ordinal."""

    tool_call: ToolCallID = Field(
        default=ToolCallID(""), serialization_alias="toolCall"
    )
    """ToolCall is the tool call that created the job."""

    record: bool
    """Record reports whether the job kept a record."""

    registered_at: Int64 = Field(serialization_alias="registeredAt")
    """RegisteredAt is the registration time in Unix milliseconds."""

    settled_at: Int64 = Field(default=0, serialization_alias="settledAt")
    """SettledAt is the settlement time in Unix milliseconds; zero while incomplete."""

    status: JobStatus | None = None
    """Status is the terminal status; None while incomplete."""

    detail: str = ""
    """Detail is the settlement detail."""

    producer_reported: bool = Field(serialization_alias="producerReported")
    """ProducerReported is false when the settlement was forced."""

    cause: SettlementCause | None = None
    """Cause names the source that settled the job, when known."""

    complete: bool
    """Complete reports that a settled fact was read."""

    @property
    def name(self) -> str:
        """Name is the job's display name, such as bash-3."""
        return f"{self.kind}-{self.ordinal}"
