package pgstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/journal"
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
// entries with ids to each of the streams, one goroutine per stream.
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
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream := journal.Stream(fmt.Sprintf("stream-%02d", st))
			for i := 0; i < per; {
				// One, two or three entries per Append.
				n := min(1+i%3, per-i)
				var es []journal.Entry
				for k := range n {
					id := fmt.Sprintf("p%s-%d", proc, i+k)
					es = append(es, journal.Entry{ID: id, Payload: fact("%s", id)})
				}
				if _, err := s.Append(ctx, stream, es...); err != nil {
					errs <- err
					return
				}
				i += n
			}
		}()
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
	schema := testSchema(t)
	reader := openSchema(t, schema) // migrates before the children race to
	const procs, per = 4, 60
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(),
				"PGSTORE_CHILD="+strconv.Itoa(p), "PGSTORE_SCHEMA="+schema, "PGSTORE_PER_STREAM="+strconv.Itoa(per))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("process %d: %v\n%s", p, err, out)
			}
		}()
	}
	wg.Wait()
	for st := range processStreams {
		stream := journal.Stream(fmt.Sprintf("stream-%02d", st))
		recs := readStream(t, reader, stream, 0)
		checkGapFree(t, stream, recs)
		seen := map[string]bool{}
		for _, rec := range recs {
			if seen[rec.ID] {
				t.Fatalf("stream %s: id %s twice", stream, rec.ID)
			}
			seen[rec.ID] = true
			if string(rec.Payload) != string(fact("%s", rec.ID)) {
				t.Fatalf("stream %s seq %d: payload %s under id %s", stream, rec.Seq, rec.Payload, rec.ID)
			}
		}
		for p := range procs {
			for i := range per {
				if id := fmt.Sprintf("p%d-%d", p, i); !seen[id] {
					t.Fatalf("stream %s lacks %s", stream, id)
				}
			}
		}
		if len(recs) != procs*per {
			t.Fatalf("stream %s: %d records, want %d", stream, len(recs), procs*per)
		}
	}
}
