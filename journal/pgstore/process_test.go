package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// TestMain runs the child side of TestFourProcessesAppendingToSixteenStreams
// when the parent starts this test binary with PGSTORE_CHILD set, and the
// tests otherwise.
func TestMain(m *testing.M) {
	if proc := os.Getenv("PGSTORE_CHILD"); proc != "" {
		if err := childAppends(proc); err != nil {
			fmt.Fprintln(os.Stderr, "child", proc+":", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childAppends opens the store the parent names and appends PGSTORE_PER_STREAM
// entries to each of the streams, one goroutine per stream: with ids to the
// even streams, without to the odd ones (the two append statements).
func childAppends(proc string) error {
	per, _ := strconv.Atoi(os.Getenv("PGSTORE_PER_STREAM"))
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv("JOBGEN_TEST_POSTGRES"), WithSchema(os.Getenv("PGSTORE_SCHEMA")))
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, processStreams)
	for st := range processStreams {
		wg.Go(func() {
			stream := journal.Stream(fmt.Sprintf("stream-%02d", st))
			for i := 0; i < per; {
				// One, two or three entries per Append.
				n := min(1+i%3, per-i)
				var es []journal.Entry
				for k := range n {
					tag := fmt.Sprintf("p%s-%d", proc, i+k)
					e := journal.Entry{Payload: fact("%s", tag)}
					if st%2 == 0 { // even streams with ids, odd ones without
						e.ID = tag
					}
					es = append(es, e)
				}
				if _, err := s.Append(ctx, stream, es...); err != nil {
					errs <- err
					return
				}
				i += n
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		s.Close(ctx)
		return err
	}
	if err := s.Flush(ctx); err != nil {
		return err
	}
	return s.Close(ctx)
}

const processStreams = 16

func TestFourProcessesAppendingToSixteenStreams(t *testing.T) {
	schema := pgtest.Schema(t)
	reader := openSchema(t, schema) // migrates before the children race to
	const procs, per = 4, 60
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(),
				"PGSTORE_CHILD="+strconv.Itoa(p), "PGSTORE_SCHEMA="+schema, "PGSTORE_PER_STREAM="+strconv.Itoa(per))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("process %d: %v\n%s", p, err, out)
			}
		})
	}
	wg.Wait()
	for st := range processStreams {
		stream := journal.Stream(fmt.Sprintf("stream-%02d", st))
		recs := readGapFree(t, reader, stream)
		seen := map[string]bool{}
		for _, rec := range recs {
			var env struct{ Data string }
			if err := json.Unmarshal(rec.Payload, &env); err != nil {
				t.Fatalf("stream %s seq %d: payload %s: %v", stream, rec.Seq, rec.Payload, err)
			}
			tag := env.Data
			if seen[tag] {
				t.Fatalf("stream %s: %s twice", stream, tag)
			}
			seen[tag] = true
			if wantID := map[bool]string{true: tag, false: ""}[st%2 == 0]; rec.ID != wantID {
				t.Fatalf("stream %s seq %d: id %q, want %q", stream, rec.Seq, rec.ID, wantID)
			}
		}
		for p := range procs {
			for i := range per {
				if tag := fmt.Sprintf("p%d-%d", p, i); !seen[tag] {
					t.Fatalf("stream %s lacks %s", stream, tag)
				}
			}
		}
		if len(recs) != procs*per {
			t.Fatalf("stream %s: %d records, want %d", stream, len(recs), procs*per)
		}
	}
}
