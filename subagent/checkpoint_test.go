package subagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// A readCounter is an Observer that keeps how many records each resume read.
type readCounter struct {
	subagent.NopObserver
	mu    sync.Mutex
	reads []int
}

func (r *readCounter) Resumed(_ jobs.SessionID, _ time.Duration, facts int) {
	r.mu.Lock()
	r.reads = append(r.reads, facts)
	r.mu.Unlock()
}

func (r *readCounter) last() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reads[len(r.reads)-1]
}

// residencies runs n residencies of child c1 under the fixture's root: each
// a follow-up (the first a creation) and a turn that claims it.
func (f *fixture) residencies(n int) {
	f.t.Helper()
	for i := range n {
		if i == 0 {
			f.start("c1", f.root, "first")
		} else if _, err := f.svc.Followup(context.Background(), f.root, "c1", text("more"), subagent.FollowupOptions{}); err != nil {
			f.t.Fatal(err)
		}
		f.turn("c1", subagents.StopReasonCompleted, "")
	}
}

func TestAResumeReadsOnlyWhatFollowsTheLastCheckpoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			name    string
			bucket  int
			maxRead int
		}{
			{"checkpoints in buckets of 4", 4, 25},
			{"checkpoints in buckets of 16", subagent.DefaultCheckpointBucket, 25},
			{"no checkpoints", 0, 1 << 30},
		} {
			reads := &readCounter{}
			f := newFixture(t, nil, subagent.WithCheckpointBucket(c.bucket), subagent.WithObserver(reads))
			f.residencies(60)
			if _, err := f.svc.Followup(context.Background(), f.root, "c1", text("again"), subagent.FollowupOptions{}); err != nil {
				t.Fatal(err)
			}
			stream := f.store.Len("c1")
			got := reads.last()
			if c.bucket == 0 {
				if got < stream-2 {
					t.Errorf("%s: the resume read %d records of a stream of %d, want all", c.name, got, stream)
				}
				continue
			}
			if got > c.maxRead {
				t.Errorf("%s: the resume read %d records (the stream holds %d), want at most %d", c.name, got, stream, c.maxRead)
			}
		}
	})
}

func TestARestartRedeliversAcrossACheckpointOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil, subagent.WithCheckpointBucket(2))
		f.residencies(5)
		// a residency ends with a quiet report and a quiet notice waiting
		if _, err := f.svc.Followup(context.Background(), f.root, "c1", text("with a child"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		ca := f.host.Agent("c1")
		ca.BeginTurn()
		f.start("g", ca, "grandchild")
		quiet, err := f.svc.ReportFrom(context.Background(), f.host.Agent("g"), text("fyi"), subagent.ReportOptions{Delivery: subagents.DeliveryQuiet})
		if err != nil {
			t.Fatal(err)
		}
		f.svc.DrainDescendants(context.Background(), []subagent.Agent{ca})
		ca.EndTurn(subagents.StopReasonCompleted, "")
		synctest.Wait()
		fs := f.facts("c1")
		cp, ok := fs[len(fs)-1].(subagents.SubagentCheckpoint)
		if !ok || len(cp.Waiting) != 2 || cp.Waiting[0].Message.ID != quiet {
			t.Fatalf("stream ends %v, want a checkpoint keeping the quiet report and the notice", f.types("c1"))
		}
		notice := cp.Waiting[1].Message.ID
		// the next residency takes nothing before the process crashes
		m1, err := f.svc.Followup(context.Background(), f.root, "c1", text("after"), subagent.FollowupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := ids(f.host.Agent("c1").Delivered()), []subagents.MessageID{quiet, notice, m1}; !slices.Equal(got, want) {
			t.Fatalf("resumed from the checkpoint with %v, want %v", got, want)
		}
		f.store.Flush(context.Background())
		g := f.restart()
		m2, err := g.svc.Followup(context.Background(), g.root, "c1", text("after the crash"), subagent.FollowupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := ids(g.host.Agent("c1").Delivered()), []subagents.MessageID{quiet, notice, m1, m2}; !slices.Equal(got, want) {
			t.Fatalf("after the crash delivered %v, want %v: the checkpoint's and the tail's, once", got, want)
		}
		// claimed after the checkpoint, they are never delivered again
		g.turn("c1", subagents.StopReasonCompleted, "")
		m3, err := g.svc.Followup(context.Background(), g.root, "c1", text("last"), subagent.FollowupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(g.host.Agent("c1").Delivered()); !slices.Equal(got, []subagents.MessageID{m3}) {
			t.Fatalf("delivered %v after everything was claimed, want only %v", got, m3)
		}
	})
}

// pointerless is a store that refuses appends to pointer streams, as if
// every process had crashed between a checkpoint and its pointer.
type pointerless struct{ *subagenttest.MemStore }

func (p pointerless) Append(ctx context.Context, stream journal.Stream, entries ...journal.Entry) ([]uint64, error) {
	if strings.Contains(string(stream), "/checkpoints") {
		return nil, errors.New("lost")
	}
	return p.MemStore.Append(ctx, stream, entries...)
}

func TestALostPointerCostsReadsNotMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := subagenttest.NewMemStore()
		reads := &readCounter{}
		f := newFixture(t, mem, subagent.WithStore(pointerless{mem}), subagent.WithObserver(reads))
		f.residencies(6)
		if _, err := f.svc.Followup(context.Background(), f.root, "c1", text("x"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		if got, stream := reads.last(), mem.Len("c1"); got < stream-2 {
			t.Fatalf("with no pointer the resume read %d of %d records, want the whole stream", got, stream)
		}
		if got := f.host.Agent("c1").Delivered(); len(got) != 1 {
			t.Fatalf("delivered %d messages, want the follow-up alone", len(got))
		}
	})
}

func TestAPointerThatLeadsNowhereFallsBackToTheWholeStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logOpt, log := withLog()
		f := newFixture(t, nil, logOpt)
		f.residencies(3)
		bogus, _ := subagents.EncodeFact(subagents.SubagentCheckpointed{Child: "c1", Index: 99, Seq: 2, Level: 0, Bucket: 0})
		f.store.Append(context.Background(), "c1/checkpoints/0/0", journal.Entry{Payload: bogus})
		if _, err := f.svc.Followup(context.Background(), f.root, "c1", text("x"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := f.host.Agent("c1").Delivered(); len(got) != 1 {
			t.Fatalf("delivered %d messages, want the follow-up alone", len(got))
		}
		if len(log.find("leads nowhere")) != 1 {
			t.Fatalf("logged %+v, want the warning that a pointer leads nowhere", log.records)
		}
	})
}

func TestAResumeFromACheckpointStillGetsTheSeed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		seed := []json.RawMessage{json.RawMessage(`{"turn":1}`), json.RawMessage(`{"turn":2}`)}
		f.prov.Seed = func(subagent.ContinuableCreateRequest) (subagent.ContinuableCreateSpec, error) {
			return subagent.ContinuableCreateSpec{Seed: seed}, nil
		}
		f.residencies(3)
		if _, err := f.svc.Followup(context.Background(), f.root, "c1", text("x"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		got := f.host.Agent("c1").Child.Seed
		if len(got) != 2 || string(got[0]) != `{"turn":1}` || string(got[1]) != `{"turn":2}` {
			t.Fatalf("seed at a resume from a checkpoint %s, want %s", got, seed)
		}
	})
}
