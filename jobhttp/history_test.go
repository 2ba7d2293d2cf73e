package jobhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/registry"
)

// getJSON makes a GET as session and decodes a 200's body into v.
func (s *server) getJSON(path, session string, v any) {
	s.t.Helper()
	res := s.request("GET", path, session, nil, nil)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		s.t.Fatalf("GET %s: %s %s", path, res.Status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		s.t.Fatalf("GET %s: %v in %s", path, err, body)
	}
}

// The history of a session whose older facts were archived serves what
// the store holds live: its later jobs, to every client as before (the
// list of intervals, ListHistory), and to one that asks (ArchivedHistory)
// also which seqs of the session's stream were archived and into which
// file.
func TestHistoryOfAnArchivedSessionServesWhatIsLiveAndSaysWhatWasArchived(t *testing.T) {
	ctx := context.Background()
	store, err := pgstore.Open(ctx, pgtest.DSN(t), pgstore.WithSchema(pgtest.Schema(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(context.Background()) })
	s := newServer(t, []jobhttp.Option{jobhttp.WithHistory(jobhttp.StoreHistory(store))},
		registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
	run := func(label string) jobs.JobSnapshot {
		snap, p := s.startPlain("alice", label)
		p.finish(jobs.JobStatusCompleted, "done")
		if _, _, err := s.reg.Wait(ctx, "alice", snap.ID, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		return snap
	}
	run("old")
	file, err := journal.Open(filepath.Join(t.TempDir(), "archive.journal"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close(ctx)
	last, err := store.LastSeq(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Archive(ctx, []pgstore.Judged{{Stream: "alice", Through: last}}, file); err != nil {
		t.Fatal(err)
	}
	later := run("later")

	var ivs []wire.Interval
	s.getJSON("/api/history", "alice", &ivs)
	if len(ivs) != 1 || ivs[0].JobID != later.ID || !ivs[0].Complete {
		t.Fatalf("alice's history = %+v; want her later job, which the store holds", ivs)
	}
	var h wire.History
	s.getJSON("/api/history/archived", "alice", &h)
	want := []wire.ArchivedRange{{First: 1, Through: last, Archive: file.Path()}}
	if len(h.Intervals) != 1 || h.Intervals[0].JobID != later.ID || len(h.Archived) != 1 || h.Archived[0] != want[0] {
		t.Fatalf("alice's history with what was archived = %+v; want her later job and %+v", h, want)
	}
	// A session nothing of which was archived says so by an empty list.
	s.getJSON("/api/history/archived", "bob", &h)
	if len(h.Intervals) != 0 || len(h.Archived) != 0 {
		t.Fatalf("bob's history = %+v; want nothing", h)
	}
}

// A scriptedStore answers each ReadStream with the next of its reads.
type scriptedStore struct {
	journal.Store
	reads []func(after uint64) []any // each a list of journal.Record and error
	calls []uint64                   // the after of each read
}

func (s *scriptedStore) ReadStream(ctx context.Context, stream journal.Stream, after uint64) iter.Seq2[journal.Record, error] {
	read := s.reads[len(s.calls)]
	s.calls = append(s.calls, after)
	return func(yield func(journal.Record, error) bool) {
		for _, x := range read(after) {
			var ok bool
			switch x := x.(type) {
			case journal.Record:
				ok = yield(x, nil)
			case error:
				ok = yield(journal.Record{}, x)
			}
			if !ok {
				return
			}
		}
	}
}

// A history read that an archive overtook (the read yielded seq 1, then
// the ArchivedError of seqs 2 to 4) is read again from the start, so that
// it names every archived run, and then after them: what it served of the
// overtaken read, archived since, is not served.
func TestAHistoryReadThatAnArchiveOvertookIsReadAgain(t *testing.T) {
	reg := registered("alice", 1)
	live := registered("alice", 2)
	rec := func(seq uint64, f jobs.Fact) journal.Record {
		p, err := jobs.EncodeFact(f)
		if err != nil {
			t.Fatal(err)
		}
		return journal.Record{Stream: "alice", Seq: seq, Payload: p}
	}
	runs := []journal.ArchivedRange{{First: 1, Through: 2, Archive: "a.journal"}, {First: 3, Through: 4, Archive: "b.journal"}}
	store := &scriptedStore{reads: []func(uint64) []any{
		func(uint64) []any {
			return []any{rec(1, reg), &journal.ArchivedError{Stream: "alice", After: 1, Through: 4, Ranges: []journal.ArchivedRange{{First: 2, Through: 2, Archive: "a.journal"}, runs[1]}}}
		},
		func(uint64) []any {
			return []any{&journal.ArchivedError{Stream: "alice", After: 0, Through: 4, Ranges: runs}}
		},
		func(uint64) []any { return []any{rec(5, live)} },
	}}
	h, err := jobhttp.StoreHistory(store)(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(store.calls) != "[0 0 4]" {
		t.Fatalf("StoreHistory read after seqs %v; want 0, 0 again, then 4", store.calls)
	}
	want := []wire.ArchivedRange{{First: 1, Through: 2, Archive: "a.journal"}, {First: 3, Through: 4, Archive: "b.journal"}}
	if len(h.Intervals) != 1 || h.Intervals[0].JobID != live.JobID || fmt.Sprint(h.Archived) != fmt.Sprint(want) {
		t.Fatalf("history = %+v; want the live job alone and runs %+v", h, want)
	}
}

func registered(owner jobs.SessionID, ordinal int) jobs.JobRegistered {
	return jobs.JobRegistered{JobID: jobs.NewJobID(), At: 1, Owner: owner, Kind: "bash", Label: "l", Ordinal: ordinal}
}

// The page says above its timeline which runs of the session's history
// were archived, and where, and draws the jobs the journal serves live.
func TestPageTimelineSaysWhatWasArchived(t *testing.T) {
	ctx := browser(t)
	store, err := journal.Open(filepath.Join(t.TempDir(), "jobs.journal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(context.Background()) })
	live := jobhttp.StoreHistory(store)
	s := newServerAs(t, func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, []jobhttp.Option{
		jobhttp.WithHistory(func(ctx context.Context, session jobs.SessionID) (wire.History, error) {
			h, err := live(ctx, session)
			h.Archived = []wire.ArchivedRange{{First: 1, Through: 40, Archive: "/srv/archive/2026-01.journal"}, {First: 41, Through: 44}}
			return h, err
		}),
	}, registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
	s.startRecording("alice", "watch", 0)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(`#timeline svg rect.bar`)); err != nil {
		t.Fatalf("the timeline never drew: %v", err)
	}
	waitJS(t, ctx, "the archived runs named", `document.getElementById("timeline-note").textContent.includes("seqs 1–40 in /srv/archive/2026-01.journal; seqs 41–44 (archive not named)")`, 5*time.Second)
}
