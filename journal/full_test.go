package journal

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestAppendPastLastSeqIsRefused: a journal whose last seq is the largest a
// stream may hold refuses the next append with ErrFull, before anything is
// acknowledged, and Flush and Close then lose nothing that was acknowledged.
// (Without it, a journal at seq 2^64-1 wrapped to 0, acknowledged the
// append, and the record never reached the file.)
func TestAppendPastLastSeqIsRefused(t *testing.T) {
	for _, last := range []uint64{MaxSeq, math.MaxUint64} {
		t.Run(itoa(int64(last%1000)), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "full.journal")
			file := append([]byte(header), recLine(last, payload(t, 1))...)
			if err := os.WriteFile(path, file, 0o644); err != nil {
				t.Fatal(err)
			}
			s := open(t, path)
			seq, err := s.append1(payload(t, 2))
			if !errors.Is(err, ErrFull) {
				t.Fatalf("Append after seq %d = %d, %v; want ErrFull", last, seq, err)
			}
			if err := s.Flush(context.Background()); err != nil {
				t.Fatalf("Flush: %v", err)
			}
			if err := s.close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			recs := records(t, path)
			if len(recs) != 1 || recs[0].Seq != last {
				t.Fatalf("journal holds %+v; want only seq %d", recs, last)
			}
		})
	}
}
