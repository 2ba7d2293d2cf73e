//go:build jobgen

package jobs

// upcastJobSettledV1 reads a job/settled v1 fact as v2.
//
// Version 1 recorded only whether the producer reported. When it did, the
// producer's Done settled the job, so the cause is SettlementCauseProducer.
// When it did not, a kill, a teardown, a failed Cancel during teardown or
// the teardown bound settled it, and v1 history cannot tell which: Cause is
// left empty rather than guessed, so that a reader never mistakes a kill for
// a teardown.
func upcastJobSettledV1(old JobSettledV1) (JobSettled, error) {
	out := JobSettled{
		JobID:            old.JobID,
		At:               old.At,
		Status:           old.Status,
		Detail:           old.Detail,
		ProducerReported: old.ProducerReported,
		Registration:     old.Registration,
	}
	if old.ProducerReported {
		out.Cause = SettlementCauseProducer
	}
	return out, nil
}
