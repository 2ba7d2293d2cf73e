package subagent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
		for _, n := range []int{6, 60} {
			reads := &readCounter{}
			f := newFixture(t, nil, subagent.WithObserver(reads))
			f.residencies(n)
			// a message accepted after the checkpoint, left waiting by a crash
			if _, err := f.svc.Followup(context.Background(), f.root, "c1", text("again"), subagent.FollowupOptions{}); err != nil {
				t.Fatal(err)
			}
			f.store.Flush(context.Background())
			g := newFixture(t, f.store.Crash(), subagent.WithObserver(reads))
			if _, err := g.svc.Followup(context.Background(), g.root, "c1", text("after"), subagent.FollowupOptions{}); err != nil {
				t.Fatal(err)
			}
			// the pointer, the checkpoint, and the three records after it:
			// the residency's start, the message accepted, its residency's
			// end (aborted at this resume, so not read)
			if got, stream := reads.last(), g.store.Len("c1"); got != 4 {
				t.Errorf("%d residencies: the resume read %d records (the stream holds %d), want 4", n, got, stream)
			}
		}
	})
}

func TestWithoutCheckpointsAResumeReadsTheWholeStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reads := &readCounter{}
		f := newFixture(t, nil, subagent.WithCheckpoints(false), subagent.WithObserver(reads))
		f.residencies(10)
		if _, err := f.svc.Followup(context.Background(), f.root, "c1", text("again"), subagent.FollowupOptions{}); err != nil {
			t.Fatal(err)
		}
		if got, stream := reads.last(), f.store.Len("c1"); got < stream-2 {
			t.Errorf("the resume read %d records of a stream of %d, want all", got, stream)
		}
		if n := f.store.Len("c1/checkpoint"); n != 0 {
			t.Errorf("checkpoints off, the pointer stream holds %d records", n)
		}
		for _, typ := range f.types("c1") {
			if typ == "subagent/checkpoint" {
				t.Fatalf("checkpoints off, the stream holds %v", f.types("c1"))
			}
		}
	})
}

func TestARestartRedeliversAcrossACheckpointOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
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
	if strings.HasSuffix(string(stream), "/checkpoint") {
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
		bogus, _ := subagents.EncodeFact(subagents.SubagentCheckpointed{Child: "c1", Index: 99, Seq: 2})
		f.store.Append(context.Background(), "c1/checkpoint", journal.Entry{Payload: bogus})
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

func TestAPointerStreamEndingInSomethingElseFallsBackToTheWholeStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for name, payload := range map[string][]byte{
			"another child's pointer": mustEncode(t, subagents.SubagentCheckpointed{Child: "c2", Index: 1, Seq: 1}),
			"a runtime's own record":  []byte(`{"type":"runtime/note","v":1,"data":{}}`),
		} {
			logOpt, log := withLog()
			reads := &readCounter{}
			f := newFixture(t, nil, logOpt, subagent.WithObserver(reads))
			f.residencies(3)
			f.store.Append(context.Background(), "c1/checkpoint", journal.Entry{Payload: payload})
			m, err := f.svc.Followup(context.Background(), f.root, "c1", text("x"), subagent.FollowupOptions{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got := ids(f.host.Agent("c1").Delivered()); !slices.Equal(got, []subagents.MessageID{m}) {
				t.Fatalf("%s: delivered %v, want the follow-up alone", name, got)
			}
			if got, stream := reads.last(), f.store.Len("c1"); got < stream-2 {
				t.Fatalf("%s: the resume read %d of %d records, want the whole stream", name, got, stream)
			}
			if len(log.find("no pointer of its child")) != 1 {
				t.Fatalf("%s: logged %+v, want the warning that the pointer stream ends in something else", name, log.records)
			}
		}
	})
}

// A journal whose checkpoints were pointed at by the pointer tree of
// decision 0070 (<child>/checkpoints/<level>/<bucket>) and not by a
// pointer stream resumes from its whole stream, with what waits delivered
// once; the checkpoint that residency ends with is pointed at, and the
// next resume reads from it.
func TestAJournalOfThePointerTreeResumesAndIsPointedAtAfterwards(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := subagenttest.NewMemStore()
		f := newFixture(t, mem, subagent.WithStore(pointerless{mem}))
		f.residencies(3)
		waiting, err := f.svc.Followup(context.Background(), f.root, "c1", text("waiting"), subagent.FollowupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.svc.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		index := 0
		for rec, err := range mem.ReadStream(context.Background(), "c1", 0) {
			if err != nil {
				t.Fatal(err)
			}
			if fact, _ := subagents.DecodeFact(rec.Payload); fact.FactType() == "subagent/checkpoint" {
				index++
				tree := fmt.Appendf(nil, `{"type":"subagent/checkpointed","v":1,"data":{"child":"c1","index":%d,"seq":%d,"level":0,"bucket":0}}`, index, rec.Seq)
				mem.Append(context.Background(), "c1/checkpoints/0/0", journal.Entry{ID: fmt.Sprint("checkpoint/", index), Payload: tree})
				if index == 1 {
					mem.Append(context.Background(), "c1/checkpoints", journal.Entry{ID: "checkpoint/1", Payload: bytes.Replace(tree, []byte(`"level":0`), []byte(`"level":3`), 1)})
				}
			}
		}
		if index != 4 || mem.Len("c1/checkpoint") != 0 {
			t.Fatalf("the old journal holds %d checkpoints and %d pointers on the pointer stream, want 4 and none", index, mem.Len("c1/checkpoint"))
		}
		mem.Flush(context.Background())

		reads := &readCounter{}
		g := newFixture(t, mem.Crash(), subagent.WithObserver(reads))
		m1, err := g.svc.Followup(context.Background(), g.root, "c1", text("after the upgrade"), subagent.FollowupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := ids(g.host.Agent("c1").Delivered()), []subagents.MessageID{waiting, m1}; !slices.Equal(got, want) {
			t.Fatalf("the first resume of the old journal delivered %v, want %v", got, want)
		}
		if got, stream := reads.last(), g.store.Len("c1"); got < stream-2 {
			t.Fatalf("the first resume read %d of %d records, want the whole stream", got, stream)
		}
		g.turn("c1", subagents.StopReasonCompleted, "")
		if n := g.store.Len("c1/checkpoint"); n != 1 {
			t.Fatalf("after the residency the pointer stream holds %d records, want 1", n)
		}
		m2, err := g.svc.Followup(context.Background(), g.root, "c1", text("next"), subagent.FollowupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(g.host.Agent("c1").Delivered()); !slices.Equal(got, []subagents.MessageID{m2}) {
			t.Fatalf("the next resume delivered %v, want %v alone", got, m2)
		}
		if got := reads.last(); got != 2 {
			t.Fatalf("the next resume read %d records, want the pointer and the checkpoint", got)
		}
	})
}

func mustEncode(t *testing.T, f subagents.Fact) []byte {
	t.Helper()
	p, err := subagents.EncodeFact(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
