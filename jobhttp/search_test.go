package jobhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// historyServer is a server whose registry records into a store its
// history reads, with "root" allowed to search every session.
func historyServer(t *testing.T) *server {
	store := subagenttest.NewMemStore()
	return newServer(t, []jobhttp.Option{
		jobhttp.WithHistory(jobhttp.StoreHistory(store)),
		jobhttp.WithAllHistory(jobhttp.StoreAllHistory(store)),
		jobhttp.WithJobFacts(jobhttp.StoreJobFacts(store)),
		jobhttp.WithOperator(func(s jobs.SessionID) bool { return s == "root" }),
	}, registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)),
		registry.WithLimits(registry.Limits{MaxPerOwner: 1000}))
}

func (s *server) search(session string, q url.Values) (int, wire.HistoryPage) {
	s.t.Helper()
	res := s.request("GET", "/api/history/search?"+q.Encode(), session, nil, nil)
	defer res.Body.Close()
	var page wire.HistoryPage
	if res.StatusCode == http.StatusOK {
		if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
			s.t.Fatal(err)
		}
	}
	return res.StatusCode, page
}

func TestSearchHistoryPagesNewestFirstWithFilters(t *testing.T) {
	s := historyServer(t)
	var ids []jobs.JobID
	for i := range 25 {
		start := jobs.PlainJobStart{
			JobStartCommon: jobs.JobStartCommon{Kind: "plain", Label: fmt.Sprint("job ", i), Owner: "alice"},
			Run: func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
				return jobs.Hooks{Cancel: func(string) error { return nil }}, nil
			},
		}
		if i%5 == 0 {
			start.Labels = map[string]string{"team": "infra"}
		}
		snap, err := s.reg.Start(t.Context(), start)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, snap.ID)
	}
	s.startPlain("bob", "bob's")

	code, page := s.search("alice", url.Values{"limit": {"10"}})
	if code != http.StatusOK || page.Total != 25 || len(page.Intervals) != 10 || page.Next != 10 || page.Intervals[0].JobID != ids[24] {
		t.Fatalf("first page: %d, total %d, %d intervals, next %d; want 25 in all, 10 newest first, next 10", code, page.Total, len(page.Intervals), page.Next)
	}
	_, last := s.search("alice", url.Values{"limit": {"10"}, "cursor": {"20"}})
	if len(last.Intervals) != 5 || last.Next != 0 || last.Intervals[4].JobID != ids[0] {
		t.Fatalf("last page: %d intervals, next %d; want the 5 oldest and no next", len(last.Intervals), last.Next)
	}
	_, labelled := s.search("alice", url.Values{"label": {"team=infra"}, "status": {"running"}})
	if labelled.Total != 5 {
		t.Fatalf("team=infra and incomplete: %d; want 5", labelled.Total)
	}
	for _, iv := range labelled.Intervals {
		if iv.Labels["team"] != "infra" || iv.Complete {
			t.Fatalf("a filtered interval %+v does not match", iv)
		}
	}
	if _, page := s.search("alice", url.Values{"kind": {"other"}}); page.Total != 0 || page.Intervals == nil {
		t.Fatalf("no match: %+v; want an empty page, not null", page)
	}

	if code, _ := s.search("alice", url.Values{"all": {"true"}}); code != http.StatusForbidden {
		t.Fatalf("all by a session not allowed: %d; want 403 (the fence stays the default)", code)
	}
	if _, page := s.search("root", url.Values{"all": {"true"}}); page.Total != 26 {
		t.Fatalf("all by the operator: total %d; want every session's 26", page.Total)
	}
	if _, page := s.search("root", nil); page.Total != 0 {
		t.Fatalf("the operator without all sees %d; want its own session's none", page.Total)
	}
	for _, q := range []url.Values{{"label": {"nokey"}}, {"limit": {"0"}}, {"limit": {"1001"}}, {"cursor": {"-1"}}} {
		if code, _ := s.search("alice", q); code != http.StatusBadRequest {
			t.Errorf("%v: %d; want 400", q, code)
		}
	}
}

func TestJobHistoryAnswersAJobsFactsInOrderFenced(t *testing.T) {
	s := historyServer(t)
	snap, _ := s.startPlain("alice", "deploy")
	if _, err := s.reg.Kill("alice", snap.ID, "release freeze"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, s.reg, "alice", snap.ID)
	res := s.request("GET", "/api/history/jobs/"+snap.ID.String(), "alice", nil, nil)
	defer res.Body.Close()
	var page wire.JobHistory
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("a job's page: %s %v", res.Status, err)
	}
	if len(page.Facts) != 2 || page.Facts[0].Type != "job/registered" || page.Facts[0].Version != 3 || page.Facts[1].Type != "job/settled" {
		t.Fatalf("facts = %+v; want registered v3 then settled", page.Facts)
	}
	if iv := page.Interval; iv.JobID != snap.ID || !iv.Complete || iv.Cause != jobs.SettlementCauseKill || iv.Status != jobs.JobStatusKilled {
		t.Fatalf("interval = %+v; want the killed job, cause kill", iv)
	}
	for _, who := range []string{"bob"} {
		res := s.request("GET", "/api/history/jobs/"+snap.ID.String(), who, nil, nil)
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Fatalf("%s reading alice's job page: %s; want 404", who, res.Status)
		}
	}
}
