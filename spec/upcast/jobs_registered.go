//go:build jobgen

package jobs

// upcastJobRegisteredV1 reads a job/registered v1 fact as v2.
//
// Version 1 did not record which host registered the job: Host is left
// empty, as a runtime that names no host writes it, so a fleet view shows
// the job without a host rather than guessing one.
func upcastJobRegisteredV1(old JobRegisteredV1) (JobRegistered, error) {
	return JobRegistered{
		JobID:    old.JobID,
		At:       old.At,
		Owner:    old.Owner,
		Kind:     old.Kind,
		Label:    old.Label,
		Ordinal:  old.Ordinal,
		ToolCall: old.ToolCall,
		Record:   old.Record,
	}, nil
}
