package jobhttp

import (
	"context"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

// StoreHistory answers /api/history from a journal: the execution intervals
// of the caller's session, read from its stream alone (the registry records a
// job's facts on its owner's stream; see jobhistory.StreamOf), oldest first.
// It reads what the store has accepted, durable or not, so a timeline shows
// jobs as they register. It reads tolerantly (decision 0174): a job fact a
// newer build wrote shows its job with what this build can read of it, the
// interval marked partial; a fact of another vocabulary is skipped.
func StoreHistory(store journal.Store) HistoryFunc {
	return func(ctx context.Context, session jobs.SessionID) ([]wire.Interval, error) {
		records := store.ReadStream(ctx, journal.Stream(session), 0)
		ivs, err := jobhistory.Intervals(journal.Facts(records, jobs.ReadFact))
		out := make([]wire.Interval, len(ivs))
		for i, iv := range ivs {
			// A conversion, not a copy field by field: it compiles only
			// while jobhistory's Interval and the wire's have the same
			// fields, so the two cannot drift apart.
			out[i] = wire.Interval(iv)
		}
		return out, err
	}
}
