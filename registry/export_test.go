package registry

import "github.com/jobgen/jobgen/generated/jobs"

// The external tests read a record into a reused buffer under the names
// they would have if a user called them; they are the package's own.

// RecordBuffer is recordBuffer for the external tests.
type RecordBuffer = recordBuffer

// ReadRecordInto is readRecordInto for the external tests.
func (r *Registry) ReadRecordInto(caller jobs.SessionID, id jobs.JobID, from int64, buf *RecordBuffer) error {
	return r.readRecordInto(caller, id, from, buf)
}
