package jobhttp

import (
	"context"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
)

// StoreHistory answers /api/history from a journal: the execution intervals
// of the caller's session, read from its stream alone (the registry records a
// job's facts on its owner's stream; see jobhistory.StreamOf). The answer is
// a JSON array of jobhistory.Interval, oldest first. It reads what the store
// has accepted, durable or not, so a timeline shows jobs as they register.
func StoreHistory(store journal.Store) HistoryFunc {
	return func(ctx context.Context, session jobs.SessionID) (any, error) {
		records := store.ReadStream(ctx, journal.Stream(session), 0)
		ivs, err := jobhistory.Intervals(journal.Facts(records, jobs.DecodeFact))
		if ivs == nil {
			ivs = []jobhistory.Interval{}
		}
		return ivs, err
	}
}
