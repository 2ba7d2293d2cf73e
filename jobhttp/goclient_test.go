package jobhttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
	"github.com/jobgen/jobgen/httproute/routetest"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// oneChildOf are subagents with one settled child under alice.
type oneChildOf struct{}

const aliceChild jobs.SessionID = "alice/child-1"

func (oneChildOf) Tree(ctx context.Context, session jobs.SessionID) ([]wire.SubagentNode, error) {
	if session != "alice" {
		return []wire.SubagentNode{}, nil
	}
	return []wire.SubagentNode{{ID: aliceChild, Parent: "alice", Root: "alice", Depth: 1, State: wire.SubagentStateSettled, Provider: "test", CreatedAt: 1}}, nil
}

func (oneChildOf) History(ctx context.Context, session, child jobs.SessionID) ([]wire.SubagentEvent, error) {
	if session != "alice" || child != aliceChild {
		return nil, jobhttp.ErrNoSuchChild
	}
	return []wire.SubagentEvent{{At: 1, Kind: wire.SubagentEventKindCreated, Text: "a child"}}, nil
}

// coveredClient serves h behind a routetest.Coverage and returns alice's
// generated client of it.
func coveredClient(t *testing.T, h http.Handler) (*wire.Client, *routetest.Coverage) {
	t.Helper()
	cover := routetest.Cover(wire.Routes(), h)
	srv := httptest.NewServer(cover)
	t.Cleanup(srv.Close)
	c, err := wire.NewClient(srv.URL, httproute.ClientOptions{Header: http.Header{sessionHeader: {"alice"}}})
	if err != nil {
		t.Fatal(err)
	}
	return c, cover
}

// first is the first element of a stream, which must not be an error.
func first[T any](t *testing.T, what string, seq func(func(T, error) bool)) T {
	t.Helper()
	for v, err := range seq {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	t.Fatalf("%s: the stream ended empty", what)
	panic("unreachable")
}

// TestTheGoClientCallsEveryRouteOfTheHandler calls every route of
// spec/wire.yaml through the generated wire.Client against a Handler that
// serves all it can: each answer decoded as its Server method returns it,
// the follow read to its status, a refusal an *httproute.WireError with
// the ErrorBody's message, a decline errors.Is ErrNotServed. Coverage says
// which routes the test called, so a route the spec adds fails it.
func TestTheGoClientCallsEveryRouteOfTheHandler(t *testing.T) {
	ctx := t.Context()
	store := subagenttest.NewMemStore()
	s := newServer(t, []jobhttp.Option{jobhttp.WithHistory(jobhttp.StoreHistory(store)), jobhttp.WithSubagents(oneChildOf{})},
		registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
	c, cover := coveredClient(t, s.h)
	rec, p := s.startRecording("alice", "recorded", 0)
	p.job.Append("one\n", jobs.AppendOptions{})
	p.job.Append("two\n", jobs.AppendOptions{})
	p.finish(jobs.JobStatusCompleted, "done")
	plain, _ := s.startPlain("alice", "plain")
	term, _, keys := s.startTerminal("alice", "term")
	foreign, _ := s.startPlain("bob", "bob's")

	if _, err := c.Page(ctx, wire.PageRequest{}, ""); err != nil {
		t.Errorf("Page: %v", err)
	}
	roster, err := c.ListJobs(ctx, wire.ListJobsRequest{})
	if err != nil || len(roster) != 3 {
		t.Errorf("ListJobs = %d jobs, %v; want alice's 3", len(roster), err)
	}
	if got := first(t, "WatchJobs", c.WatchJobs(ctx, wire.WatchJobsRequest{})); len(got) != 3 {
		t.Errorf("WatchJobs' roster has %d jobs, want 3", len(got))
	}
	if got, err := c.GetJob(ctx, wire.GetJobRequest{ID: rec.ID}); err != nil || got.Item.ID != rec.ID {
		t.Errorf("GetJob = %v, %v", got.Item.ID, err)
	}
	var refused *httproute.WireError
	if _, err := c.GetJob(ctx, wire.GetJobRequest{ID: foreign.ID}); !errors.As(err, &refused) || refused.Status != 404 || refused.Message != "no such job" {
		t.Errorf("GetJob of bob's job: %v", err)
	}
	var text strings.Builder
	var last jobs.FollowFrame
	from := int64(0)
	for frame, err := range c.FollowJob(ctx, wire.FollowJobRequest{ID: rec.ID, From: &from}) {
		if err != nil {
			t.Fatalf("FollowJob: %v", err)
		}
		if out, ok := frame.(jobs.OutputFrame); ok {
			for _, ch := range out.Chunks {
				text.WriteString(ch.Text)
			}
		}
		last = frame
	}
	if _, ok := last.(jobs.StatusFrame); !ok || text.String() != "one\ntwo\n" {
		t.Errorf("FollowJob read %q and ended on %T", text.String(), last)
	}
	if killed, err := c.KillJob(ctx, wire.KillJobRequest{ID: plain.ID, Body: wire.KillRequest{Reason: "test"}}); err != nil || killed.Result != wire.KillResultRequested {
		t.Errorf("KillJob = %v, %v", killed.Result, err)
	}
	if _, err := c.SendInput(ctx, wire.SendInputRequest{ID: term.ID, Body: wire.InputRequest{Text: "ls\n"}}); err != nil {
		t.Errorf("SendInput: %v", err)
	} else if got := keys.typed(); len(got) != 1 || got[0] != "ls\n" {
		t.Errorf("the terminal was typed %q", got)
	}
	raw, err := c.DownloadRecord(ctx, wire.DownloadRecordRequest{ID: rec.ID})
	if err != nil || string(raw.Body) != "one\ntwo\n" || raw.XRecordNext != 8 || !strings.Contains(raw.ContentDisposition, ".log") {
		t.Errorf("DownloadRecord = %+v, %v", raw, err)
	}
	waitFor(t, "the history's intervals", func() bool {
		ivs, err := c.ListHistory(ctx, wire.ListHistoryRequest{})
		return err == nil && len(ivs) >= 1
	})
	if h, err := c.ArchivedHistory(ctx, wire.ArchivedHistoryRequest{}); err != nil || len(h.Intervals) == 0 {
		t.Errorf("ArchivedHistory = %d intervals, %v", len(h.Intervals), err)
	}
	if tree, err := c.ListSubagents(ctx, wire.ListSubagentsRequest{}); err != nil || len(tree) != 1 || tree[0].ID != aliceChild {
		t.Errorf("ListSubagents = %v, %v", tree, err)
	}
	if tree := first(t, "WatchSubagents", c.WatchSubagents(ctx, wire.WatchSubagentsRequest{})); len(tree) != 1 {
		t.Errorf("WatchSubagents' tree = %v", tree)
	}
	if events, err := c.SubagentHistory(ctx, wire.SubagentHistoryRequest{ID: aliceChild}); err != nil || len(events) != 1 {
		t.Errorf("SubagentHistory = %v, %v", events, err)
	}
	if waiting, err := c.ListWaiting(ctx, wire.ListWaitingRequest{}); err != nil || len(waiting) != 0 {
		t.Errorf("ListWaiting = %v, %v; want none: nothing waits for a slot", waiting, err)
	}
	if page, err := c.SearchHistory(ctx, wire.SearchHistoryRequest{}); err != nil || page.Total < 1 || len(page.Intervals) != page.Total {
		t.Errorf("SearchHistory = %+v, %v; want alice's intervals on one page", page, err)
	}
	// JobHistory answers only with WithJobFacts, which this server leaves
	// unset: called, it is declined by name.
	if _, err := c.JobHistory(ctx, wire.JobHistoryRequest{ID: foreign.ID}); err == nil {
		t.Errorf("JobHistory without WithJobFacts answered; want it declined")
	}
	stop, _ := s.startPlain("alice", "stopped in bulk")
	if res, err := c.KillJobs(ctx, wire.KillJobsRequest{Body: wire.KillAllRequest{IDs: []jobs.JobID{stop.ID, foreign.ID}, Reason: "bulk"}}); err != nil || len(res.Results) != 2 {
		t.Errorf("KillJobs = %+v, %v; want a result for each id", res, err)
	}
	_, err = c.ListFleetHosts(ctx, wire.ListFleetHostsRequest{})
	if !errors.Is(err, httproute.ErrNotServed) || !errors.As(err, &refused) || refused.NotServed != "ListFleetHosts" {
		t.Errorf("ListFleetHosts of a Handler: %v", err)
	}
	watchThroughTheClient(t, c, term.ID) // a live job: a settled one's view ends after its status
	if missing := cover.Missing(); len(missing) > 0 {
		t.Errorf("the test called no %s", strings.Join(missing, ", "))
	}
}

// watchThroughTheClient opens a Watch stream with the roster as a view,
// opens a follow of job as a second view through OpenView, reads a frame
// of it, and closes it through CloseView.
func watchThroughTheClient(t *testing.T, c *wire.Client, job jobs.JobID) {
	t.Helper()
	ctx := t.Context()
	views := "r=WatchJobs"
	var stream string
	seen := map[string]bool{}
	for ev, err := range c.Watch(ctx, wire.WatchRequest{Views: &views}) {
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		switch {
		case ev.Watch != nil:
			stream = ev.Watch.Stream
			if _, err := c.OpenView(ctx, wire.OpenViewRequest{Stream: stream, Body: wire.WatchViewRequest{View: "f", Route: wire.WatchRouteFollowJob, ID: job}}); err != nil {
				t.Fatalf("OpenView: %v", err)
			}
		case ev.View != nil:
			seen[ev.View.View] = true
		}
		if seen["r"] && seen["f"] {
			// Closed while the stream is open: a view lives as long as its stream.
			if closed, err := c.CloseView(ctx, wire.CloseViewRequest{Stream: stream, View: "f"}); err != nil || closed.View != "f" {
				t.Errorf("CloseView = %+v, %v", closed, err)
			}
			return
		}
	}
	t.Error("the Watch stream ended before both views' frames")
}

// TestTheGoClientCallsEveryRouteOfTheFleet calls every route through the
// generated client against a Fleet: what it serves answers, a follow is
// proxied to the job's host, and what it declines is ErrNotServed.
func TestTheGoClientCallsEveryRouteOfTheFleet(t *testing.T) {
	ctx := t.Context()
	fleet, job := newWalkedFleet(t)
	c, cover := coveredClient(t, fleet)
	if _, err := c.Page(ctx, wire.PageRequest{}, "index.html"); err != nil {
		t.Errorf("Page: %v", err)
	}
	roster, err := c.ListJobs(ctx, wire.ListJobsRequest{})
	if err != nil || len(roster) != 1 || roster[0].Extra.Host.Name != "walked" {
		t.Fatalf("ListJobs = %+v, %v", roster, err)
	}
	if got := first(t, "WatchJobs", c.WatchJobs(ctx, wire.WatchJobsRequest{})); len(got) != 1 || got[0].Extra.Host.Name != "walked" {
		t.Errorf("WatchJobs' roster = %+v", got)
	}
	if got, err := c.GetJob(ctx, wire.GetJobRequest{ID: job}); err != nil || got.Extra.Host.Name != "walked" {
		t.Errorf("GetJob = %+v, %v", got, err)
	}
	if _, ok := first(t, "FollowJob", c.FollowJob(ctx, wire.FollowJobRequest{ID: job})).(jobs.OpenedFrame); !ok {
		t.Error("the fleet's follow did not open with an opened frame")
	}
	if raw, err := c.DownloadRecord(ctx, wire.DownloadRecordRequest{ID: job}); err != nil || raw.XRecordNext != int64(len(raw.Body)) {
		t.Errorf("DownloadRecord = %+v, %v", raw, err)
	}
	var refused *httproute.WireError
	if _, err := c.SendInput(ctx, wire.SendInputRequest{ID: job, Body: wire.InputRequest{Text: "ls\n"}}); !errors.As(err, &refused) || refused.Status != http.StatusConflict {
		t.Errorf("SendInput to a job with no terminal: %v", err)
	}
	if killed, err := c.KillJob(ctx, wire.KillJobRequest{ID: job}); err != nil || killed.Result != wire.KillResultRequested {
		t.Errorf("KillJob = %+v, %v", killed, err)
	}
	if ivs, err := c.ListHistory(ctx, wire.ListHistoryRequest{}); err != nil || len(ivs) != 1 || ivs[0].Extra.Host.Name != "walked" {
		t.Errorf("ListHistory = %+v, %v", ivs, err)
	}
	if hosts, err := c.ListFleetHosts(ctx, wire.ListFleetHostsRequest{}); err != nil || hosts == nil {
		t.Errorf("ListFleetHosts = %#v, %v; want the list (empty: the walked host sends no heartbeat)", hosts, err)
	}
	declined := map[string]error{}
	_, declined["ArchivedHistory"] = c.ArchivedHistory(ctx, wire.ArchivedHistoryRequest{})
	_, declined["ListSubagents"] = c.ListSubagents(ctx, wire.ListSubagentsRequest{})
	_, declined["SubagentHistory"] = c.SubagentHistory(ctx, wire.SubagentHistoryRequest{ID: "alice/x"})
	_, declined["ListWaiting"] = c.ListWaiting(ctx, wire.ListWaitingRequest{})
	walked, other := jobs.HostID("walked"), jobs.HostID("elsewhere")
	if page, err := c.SearchHistory(ctx, wire.SearchHistoryRequest{Host: &walked}); err != nil || page.Total != 1 {
		t.Errorf("SearchHistory of the walked host = %+v, %v; want its one job", page, err)
	}
	if page, err := c.SearchHistory(ctx, wire.SearchHistoryRequest{Host: &other}); err != nil || page.Total != 0 {
		t.Errorf("SearchHistory of another host = %+v, %v; want none", page, err)
	}
	_, declined["JobHistory"] = c.JobHistory(ctx, wire.JobHistoryRequest{ID: job})
	_, declined["KillJobs"] = c.KillJobs(ctx, wire.KillJobsRequest{Body: wire.KillAllRequest{IDs: []jobs.JobID{job}}})
	for _, err := range c.WatchSubagents(ctx, wire.WatchSubagentsRequest{}) {
		declined["WatchSubagents"] = err
		break
	}
	for _, err := range c.Watch(ctx, wire.WatchRequest{}) {
		declined["Watch"] = err
		break
	}
	_, declined["OpenView"] = c.OpenView(ctx, wire.OpenViewRequest{Stream: "s", Body: wire.WatchViewRequest{View: "r", Route: wire.WatchRouteWatchJobs}})
	_, declined["CloseView"] = c.CloseView(ctx, wire.CloseViewRequest{Stream: "s", View: "r"})
	for name, err := range declined {
		if !errors.As(err, &refused) || refused.NotServed != name {
			t.Errorf("%s of a Fleet: %v, want its decline", name, err)
		}
	}
	if missing := cover.Missing(); len(missing) > 0 {
		t.Errorf("the test called no %s", strings.Join(missing, ", "))
	}
}

// waitFor polls ok until it holds, for what a server learns a moment later.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s never came", what)
		}
	}
}
