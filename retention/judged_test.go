package retention_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/retention"
)

// What moves is what was judged: a job registered in a chosen session
// after Choose read it (and after the cutoff) is live, so Archive moves the
// session through the seq Choose judged and no further; the late
// registration stays in the store, where the session's later facts
// follow it, and the archive holds exactly the judged seqs.
func TestAJobRegisteredAfterTheJudgementIsNotArchived(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	done := registered("s-1", 1)
	record(t, s, "s-1", done, settled(done))
	time.Sleep(10 * time.Millisecond)
	plan, err := retention.Choose(ctx, s, retention.Options{Before: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Archive) != 1 || plan.Archive[0].Stream != "s-1" || plan.Archive[0].Through != 2 {
		t.Fatalf("plan: %+v; want s-1 judged through seq 2", plan.Archive)
	}

	live := registered("s-1", 2) // between the judgement and the move
	record(t, s, "s-1", live)

	file, err := journal.Open(filepath.Join(t.TempDir(), "archive.journal"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close(ctx)
	moved, err := s.Archive(ctx, plan.Archive, file)
	if err != nil || len(moved) != 1 || moved[0].First != 1 || moved[0].Through != 2 {
		t.Fatalf("Archive: %+v %v; want s-1 seqs 1 to 2, what was judged", moved, err)
	}
	var rest []jobs.Fact
	for rec, err := range s.ReadStream(ctx, "s-1", moved[0].Through) {
		if err != nil {
			t.Fatalf("reading s-1 after its archived seqs: %v", err)
		}
		f, err := jobs.DecodeFact(rec.Payload)
		if err != nil {
			t.Fatal(err)
		}
		rest = append(rest, f)
	}
	if len(rest) != 1 || rest[0].(jobs.JobRegistered).JobID != live.JobID {
		t.Fatalf("the store holds %v of s-1 after the archive; want the live job's registration", rest)
	}
	var copied []uint64
	for rec, err := range file.ReadStream(ctx, "s-1", 0) {
		if err != nil {
			t.Fatal(err)
		}
		copied = append(copied, rec.Seq)
	}
	if len(copied) != 2 {
		t.Fatalf("the archive holds s-1's seqs %v; want 1 and 2", copied)
	}
	// The live job settles on its session's stream, after the archive, and
	// a read from the start says which seqs went where.
	record(t, s, "s-1", settled(live))
	var ae *journal.ArchivedError
	for _, err := range s.ReadStream(ctx, "s-1", 0) {
		if !errors.As(err, &ae) || ae.Through != 2 {
			t.Fatalf("reading s-1 from the start: %v; want an ArchivedError through seq 2", err)
		}
		break
	}
}
