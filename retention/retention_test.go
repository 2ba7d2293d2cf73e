package retention_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/retention"
)

func openStore(t *testing.T) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(context.Background(), pgtest.DSN(t), pgstore.WithSchema(pgtest.Schema(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// record appends facts of either vocabulary to stream.
func record(t *testing.T, s *pgstore.Store, stream journal.Stream, facts ...any) {
	t.Helper()
	for _, f := range facts {
		var payload []byte
		var err error
		switch f := f.(type) {
		case jobs.Fact:
			payload, err = jobs.EncodeFact(f)
		case subagents.Fact:
			payload, err = subagents.EncodeFact(f)
		case string:
			payload = []byte(f)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(context.Background(), stream, journal.Entry{Payload: payload}); err != nil {
			t.Fatal(err)
		}
	}
}

func registered(owner jobs.SessionID, ordinal int) jobs.JobRegistered {
	return jobs.JobRegistered{JobID: jobs.NewJobID(), At: 1, Owner: owner, Kind: "bash", Label: "build", Ordinal: ordinal}
}

func settled(r jobs.JobRegistered) jobs.JobSettled {
	return jobs.JobSettled{JobID: r.JobID, At: 2, Status: jobs.JobStatusCompleted, ProducerReported: true, Cause: jobs.SettlementCauseProducer,
		Registration: jobs.JobRegistration{RegisteredAt: r.At, Owner: r.Owner, Kind: r.Kind, Label: r.Label, Ordinal: r.Ordinal}}
}

func created(child, parent jobs.SessionID) subagents.SubagentCreated {
	return subagents.SubagentCreated{Child: child, At: 1,
		Header:     subagents.ChildHeader{ParentSession: parent, Origin: subagents.OriginSubagent, DelegationDepth: 1},
		Descriptor: subagents.Descriptor{Version: 2, Mode: subagents.DescriptorModeContinuable, Provider: "p"}}
}

// residency is a residency of a child that started and, when ended, ended.
func residency(ended bool) []any {
	run := subagents.NewRunID()
	out := []any{subagents.SubagentResidencyStarted{Run: run, At: 1}}
	if ended {
		out = append(out, subagents.SubagentResidencyEnded{Run: run, At: 2, StopReason: subagents.StopReasonCompleted})
	}
	return out
}

// Each stream is judged by its vocabulary, and trees go whole: a stream
// with a job that never settled stays, and so does the tree of a child
// still resident; a settled child goes with its parent and its pointer
// streams; a dead host's heartbeats go, a live one's stay; records of an
// unknown vocabulary keep their stream unless allowed; a stream with a
// record after the cutoff is not considered at all.
func TestChooseArchivesWholeTreesWhoseStreamsAreOver(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	done, open := registered("s-done", 1), registered("s-open", 3)
	record(t, s, "s-done", done, settled(done))
	record(t, s, "s-open", open)
	record(t, s, "c-done", created("c-done", "s-done"))
	record(t, s, "c-done", residency(true)...)
	record(t, s, "c-done/checkpoint", subagents.SubagentCheckpointed{Child: "c-done", Index: 1, Seq: 3})
	busy := registered("s-tree", 1)
	record(t, s, "s-tree", busy, settled(busy))
	record(t, s, "c-busy", created("c-busy", "s-tree"))
	record(t, s, "c-busy", residency(false)...)
	msg := subagents.NewMessageID()
	record(t, s, "c-waiting", created("c-waiting", "nobody-here"),
		subagents.SubagentMessageAccepted{Message: msg, At: 1, Source: subagents.MessageSource{Kind: subagents.SourceKindUser}})
	inc := jobs.NewIncarnationID()
	dead := jobs.JobHost{Name: "web-1", Incarnation: inc}
	record(t, s, jobhistory.HostStream(dead), jobs.HostHeartbeat{Host: dead, At: time.Now().Add(-time.Hour).UnixMilli(), LeaseMs: 15_000})
	alive := jobs.JobHost{Name: "web-2", Incarnation: jobs.NewIncarnationID()}
	record(t, s, jobhistory.HostStream(alive), jobs.HostHeartbeat{Host: alive, At: time.Now().UnixMilli(), LeaseMs: int64(time.Hour / time.Millisecond)})
	record(t, s, "other", `{"type":"billing/charged","v":1,"data":{}}`)
	time.Sleep(20 * time.Millisecond)
	cutoff := time.Now()
	time.Sleep(20 * time.Millisecond)
	record(t, s, "recent", registered("recent", 1))

	plan, err := retention.Choose(ctx, s, retention.Options{Before: cutoff})
	if err != nil {
		t.Fatal(err)
	}
	want := []journal.Stream{"c-done", "c-done/checkpoint", jobhistory.HostStream(dead), "s-done"}
	slices.Sort(want)
	if fmt.Sprint(plan.Streams()) != fmt.Sprint(want) || plan.Records != 7 {
		t.Fatalf("archive %v (%d records); want %v (7 records)", plan.Archive, plan.Records, want)
	}
	why := map[journal.Stream]string{}
	for _, k := range plan.Kept {
		why[k.Stream] = k.Why
	}
	for stream, reason := range map[journal.Stream]string{
		"s-open":                     "1 job not settled (bash-3)",
		"c-busy":                     "1 residency not ended",
		"s-tree":                     `"c-busy" of its tree is not over: 1 residency not ended`,
		"c-waiting":                  "1 message waiting",
		jobhistory.HostStream(alive): "its host's lease runs until",
		"other":                      "1 record of a vocabulary this build cannot judge",
	} {
		if !strings.Contains(why[stream], reason) {
			t.Errorf("%s kept because %q; want %q", stream, why[stream], reason)
		}
	}
	if _, ok := why["recent"]; ok || len(plan.Kept) != 6 {
		t.Errorf("kept %v; want the six old streams that are not over, and not the recent one", plan.Kept)
	}
	if plan, err := retention.Choose(ctx, s, retention.Options{Before: cutoff, AllowUnknown: true}); err != nil || !slices.Contains(plan.Streams(), "other") {
		t.Errorf("with AllowUnknown: %v %v; want other archived", plan.Archive, err)
	}

	// What Choose picked, Archive moves, and the rest stays whole.
	file, err := journal.Open(filepath.Join(t.TempDir(), "archive.journal"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close(ctx)
	moved, err := s.Archive(ctx, plan.Archive, file)
	if err != nil || len(moved) != len(plan.Archive) {
		t.Fatalf("Archive: %+v %v", moved, err)
	}
	if sum, err := s.Check(ctx); err != nil || sum.Records != 17-7 {
		t.Fatalf("Check after archiving: %+v %v", sum, err)
	}
}
