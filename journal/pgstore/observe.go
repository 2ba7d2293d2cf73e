package pgstore

import (
	"time"

	"github.com/jobgen/jobgen/journal"
)

// An Observer is a journal.Observer that also receives what only a
// PostgreSQL store has: its append transactions, how long appends wait for
// them, how far its tails lag behind the commits, and its reconnects. Give
// WithObserver a journal.Observer (the file store's, such as
// otelmetrics.JournalObserver); when it is also an Observer, the store calls
// these methods too. The store calls them outside its locks, on its own
// goroutines (a committer, a tail, the listener) or the caller's, so they
// may be called concurrently and must return promptly.
type Observer interface {
	journal.Observer
	// Committed reports one append transaction: how long it took, from
	// taking a connection to the end of COMMIT; how many Appends it carried
	// and their entries and bytes (stream names, ids and payloads: the
	// batch's size); and its error, nil when it committed.
	Committed(d time.Duration, appends, entries int, bytes int64, err error)
	// AppendWaited reports an Append that committed, with how long its
	// caller waited: its time in the queue and its transaction's.
	AppendWaited(d time.Duration)
	// TailLagged reports a tail delivering records: the age of the last
	// one when delivered, from its transaction's start (the server's
	// clock), which includes the time an older transaction held the read
	// horizon back.
	TailLagged(d time.Duration)
	// Reconnected reports a connection lost and tried again: the
	// listener's (what is "listen") or a tail's read (what is "tail"), and
	// the error that lost it.
	Reconnected(what string, err error)
}

// WithObserver sets the observer that receives the store's metric events
// (see Observer); the default is none, and then the store makes no call
// and reads no clock for them. Appended counts the entries that were new
// (those whose id the stream held add none) and their bytes as Committed
// counts them; Flushed reports Flush, which has nothing to wait for.
func WithObserver(o journal.Observer) Option { return func(c *config) { c.obs = o } }

// pgObserver is the store's Observer when the one WithObserver gave is one.
func (s *Store) pgObserver() Observer {
	o, _ := s.cfg.obs.(Observer)
	return o
}

// observeAppend reports the outcome of an Append of r that began at began.
func (s *Store) observeAppend(r *request, began time.Time, err error) {
	if s.cfg.obs == nil {
		return
	}
	if err != nil {
		s.cfg.obs.AppendFailed(err)
		return
	}
	if r != nil {
		s.cfg.obs.Appended(r.fresh, int64(r.freshBytes))
	}
	if o := s.pgObserver(); o != nil {
		o.AppendWaited(time.Since(began))
	}
}

// observeCommit reports one append transaction of batch.
func (s *Store) observeCommit(d time.Duration, batch []*request, err error) {
	o := s.pgObserver()
	if o == nil {
		return
	}
	entries, bytes := 0, 0
	for _, r := range batch {
		entries += len(r.entries)
		bytes += r.bytes
	}
	o.Committed(d, len(batch), entries, int64(bytes), err)
}

// observeTail reports the lag of the last record of a page a tail
// delivered, read from the server once the page was delivered (the tail's
// caller may have ended its context meanwhile); a failed question reports
// nothing.
func (s *Store) observeTail(last journal.Record) {
	o := s.pgObserver()
	if o == nil {
		return
	}
	var secs float64
	if err := s.pool.QueryRow(s.bg, `SELECT extract(epoch FROM clock_timestamp() - at)::float8 FROM `+s.sql.table("fact")+
		` WHERE xid = $1::xid8 AND pos = $2`, last.Pos.Major, int64(last.Pos.Minor)).Scan(&secs); err != nil {
		return
	}
	o.TailLagged(time.Duration(secs * float64(time.Second)))
}

// observeReconnect reports a lost connection that is tried again.
func (s *Store) observeReconnect(what string, err error) {
	if o := s.pgObserver(); o != nil {
		o.Reconnected(what, err)
	}
}
