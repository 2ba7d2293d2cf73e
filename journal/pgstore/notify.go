package pgstore

// notifier sends NOTIFY on the store's channel after commits, on a pooled
// connection and in a transaction of its own, coalescing the commits that
// land while one is sent. It is not in the append transaction because
// PostgreSQL holds a cluster-wide lock from a notifying transaction's
// pre-commit to its end, which would serialize every writer's commit flush;
// the notify-only transaction writes no WAL and waits for no flush. A hint
// lost in between costs a tail at most one poll interval.
func (s *Store) notifier() {
	defer s.notified.Done()
	for {
		select {
		case <-s.notifyDue:
		case <-s.bg.Done():
			return
		}
		if _, err := s.pool.Exec(s.bg, s.sql.of(notifySQL), s.channel); err != nil && s.bg.Err() == nil {
			s.log.Warn("pgstore: notify failed; tails fall back to polling", "schema", s.schema, "err", err)
		}
	}
}
