package pgstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/jobgen/jobgen/journal"
)

// A Summary is what Check found in a store.
type Summary struct {
	Streams, Records int
}

// Check verifies what the schema's constraints cannot: that every stream's
// facts are seqs 1 to its last seq without a gap (from its archived seq
// plus one, for a stream retention archived), where the last seq is the
// larger of head (the floor its appends number after) and its last fact's,
// so that a head past the facts, which would leave a gap at the next
// append, is damage; and that every fact's stream has a row. Damage is
// reported with the streams it touches, wrapping journal.ErrCorrupt.
func (s *Store) Check(ctx context.Context) (Summary, error) {
	if s.isClosed() {
		return Summary{}, s.errClosed()
	}
	var sum Summary
	var problems []string
	rows, err := s.pool.Query(ctx, `SELECT st.name, st.head, st.archived, coalesce(f.n, 0), coalesce(f.lo, 0), coalesce(f.hi, 0)
		FROM `+s.sql.table("stream")+` st
		LEFT JOIN (SELECT stream, count(*) AS n, min(seq) AS lo, max(seq) AS hi FROM `+s.sql.table("fact")+` GROUP BY stream) f
		ON f.stream = st.name ORDER BY st.name`)
	if err != nil {
		return sum, fmt.Errorf("%s: check: %w", s.name, err)
	}
	for rows.Next() {
		var name string
		var head, archived, n, lo, hi int64
		if err := rows.Scan(&name, &head, &archived, &n, &lo, &hi); err != nil {
			rows.Close()
			return sum, fmt.Errorf("%s: check: %w", s.name, err)
		}
		sum.Streams++
		sum.Records += int(n)
		last := max(head, hi)
		if n != last-archived || (n > 0 && (lo != archived+1 || hi != last)) {
			problem := fmt.Sprintf("stream %q: head %d, %d records with seqs %d to %d", name, head, n, lo, hi)
			if archived > 0 {
				problem += fmt.Sprintf(", archived through %d", archived)
			}
			problems = append(problems, problem)
		}
	}
	if err := rows.Err(); err != nil {
		return sum, fmt.Errorf("%s: check: %w", s.name, err)
	}
	var orphans int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM `+s.sql.table("fact")+` f WHERE NOT EXISTS (SELECT 1 FROM `+
		s.sql.table("stream")+` st WHERE st.name = f.stream)`).Scan(&orphans); err != nil {
		return sum, fmt.Errorf("%s: check: %w", s.name, err)
	}
	if orphans > 0 {
		problems = append(problems, fmt.Sprintf("%d records in streams without a counter row", orphans))
		sum.Records += orphans
	}
	if len(problems) > 0 {
		return sum, fmt.Errorf("%s: %s: %w", s.name, strings.Join(problems, "; "), journal.ErrCorrupt)
	}
	return sum, nil
}
