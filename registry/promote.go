package registry

import (
	"context"
	"fmt"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// Promote registers a producer that is already running as a job: a
// foreground command that outlived its caller's deadline and was offered
// (procjob's Offer). It is Start in every step — validation, admission
// (never waiting: a foreground caller has already waited its deadline),
// the fence, the id and ordinal, the registration commit — except that the
// starter spawns nothing but takes over the running producer, and that the
// job/registered fact says the job was promoted and when its command
// started (commandStartedAt, from the caller's clock, which must not be
// zero). The job's interval, its StartedAt and any Timeout start at the
// promotion, not at the command's start.
//
// A refusal calls no starter, so the producer is still the caller's: it
// must stop it (procjob's Offer.Accept declines, killing the command). See
// docs/decisions/0192.
func (r *Registry) Promote(ctx context.Context, start jobs.JobStart, commandStartedAt time.Time) (jobs.JobSnapshot, error) {
	spec, err := parseStart(start)
	if err != nil {
		return jobs.JobSnapshot{}, err
	}
	if commandStartedAt.IsZero() {
		return jobs.JobSnapshot{}, fmt.Errorf("registry: promote %q: no command start time: %w", spec.common.Kind, ErrInvalidStart)
	}
	spec.commandStartedAt = max(commandStartedAt.UnixMilli(), 1)
	_, snap, err := r.start(ctx, spec, false)
	return snap, err
}
