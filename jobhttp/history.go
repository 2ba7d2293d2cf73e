package jobhttp

import (
	"context"
	"errors"
	"fmt"
	"iter"

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
//
// When retention archived the older part of the stream (the store's
// ReadStream says so with a journal.ArchivedError), it answers the
// intervals of what the store holds after it, which retention never
// archives while they may still run, and names the archived runs of seqs
// with the archive of each in History.Archived (which ArchivedHistory
// answers; ListHistory answers the intervals alone). The archived part is always
// a prefix, so a read that an archive overtook is read again from the start.
func StoreHistory(store journal.Store) HistoryFunc {
	return func(ctx context.Context, session jobs.SessionID) (wire.History, error) {
		read := func(after uint64) iter.Seq2[journal.Record, error] {
			return store.ReadStream(ctx, journal.Stream(session), after)
		}
		var h wire.History
		after := uint64(0)
		for range historyReads {
			var archived *journal.ArchivedError
			ivs, err := jobhistory.Intervals(journal.Facts(untilArchived(read(after), &archived), jobs.ReadFact))
			switch {
			case err != nil:
				return wire.History{}, err
			case archived == nil:
				h.Intervals = make([]wire.Interval, len(ivs))
				for i, iv := range ivs {
					// A conversion, not a copy field by field: it compiles only
					// while jobhistory's Interval and the wire's have the same
					// fields, so the two cannot drift apart.
					h.Intervals[i] = wire.Interval(iv)
				}
				return h, nil
			case archived.After != after:
				// Archived while read: what was read went too. Read again,
				// from the start, to learn every run.
				h.Archived, after = nil, 0
			default:
				for _, r := range archived.Ranges {
					h.Archived = append(h.Archived, wire.ArchivedRange{First: r.First, Through: r.Through, Archive: r.Archive})
				}
				after = archived.Through
			}
		}
		return wire.History{}, fmt.Errorf("history of %q: its stream was archived again and again while it was read (%d reads)", session, historyReads)
	}
}

// historyReads bounds how often StoreHistory reads a stream that archives
// keep overtaking.
const historyReads = 8

// untilArchived yields records until an *journal.ArchivedError, which it
// keeps in *archived instead of yielding it.
func untilArchived(records iter.Seq2[journal.Record, error], archived **journal.ArchivedError) iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		for rec, err := range records {
			if errors.As(err, archived) {
				return
			}
			if !yield(rec, err) {
				return
			}
		}
	}
}
