package jobhistory

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/jobgen/jobgen/generated/jobs"
)

// jobID returns a fixed JobID for n, so test histories are reproducible.
func jobID(n int) jobs.JobID {
	return jobs.JobID(uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "job-%d", n)))
}

// registered returns the job/registered fact of test job n.
func registered(n int) jobs.JobRegistered {
	return jobs.JobRegistered{
		JobID: jobID(n), At: 1_700_000_000_000 + int64(n), Owner: "session-a",
		Kind: "bash", Label: fmt.Sprintf("job number %d", n), Ordinal: n, Record: n%2 == 0,
	}
}

// settled returns the job/settled fact of test job n.
func settled(n int, status jobs.JobStatus, reported bool) jobs.JobSettled {
	r := registered(n)
	return jobs.JobSettled{
		JobID: r.JobID, At: r.At + 1500, Status: status, ProducerReported: reported,
		Registration: jobs.JobRegistration{
			RegisteredAt: r.At, Owner: r.Owner, Kind: r.Kind, Label: r.Label,
			Ordinal: r.Ordinal, ToolCall: r.ToolCall, Record: r.Record,
		},
	}
}
