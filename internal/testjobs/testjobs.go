// Package testjobs holds the job facts of numbered test jobs, the fixture
// that the journal's and jobhistory's tests write and read back. Test job n
// has a fixed id and fields derived from n, so a test history is the same in
// every run. It is internal: test support, not part of the module's API.
package testjobs

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/jobgen/jobgen/generated/jobs"
)

// ID returns the fixed JobID of test job n.
func ID(n int) jobs.JobID {
	return jobs.JobID(uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "job-%d", n)))
}

// Registered returns the job/registered fact of test job n.
func Registered(n int) jobs.JobRegistered {
	return jobs.JobRegistered{
		JobID: ID(n), At: 1_700_000_000_000 + int64(n), Owner: "session-a",
		Kind: "bash", Label: fmt.Sprintf("job number %d", n), Ordinal: n, Record: n%2 == 0,
	}
}

// Settled returns the job/settled fact of test job n, settled with status
// 1.5 seconds after it registered; reported is its ProducerReported.
func Settled(n int, status jobs.JobStatus, reported bool) jobs.JobSettled {
	r := Registered(n)
	return jobs.JobSettled{
		JobID: r.JobID, At: r.At + 1500, Status: status, ProducerReported: reported,
		Registration: jobs.JobRegistration{
			RegisteredAt: r.At, Owner: r.Owner, Kind: r.Kind, Label: r.Label,
			Ordinal: r.Ordinal, ToolCall: r.ToolCall, Record: r.Record,
		},
	}
}
