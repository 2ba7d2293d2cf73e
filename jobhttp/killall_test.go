package jobhttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/registry"
)

// bulkKill posts body to the bulk stop route as session, from this site.
func (s *server) bulkKill(session, body string, header map[string]string) (*http.Response, []byte) {
	s.t.Helper()
	h := map[string]string{"Content-Type": "application/json", "Origin": s.srv.URL, "Sec-Fetch-Site": "same-origin"}
	for k, v := range header {
		h[k] = v
	}
	res := s.request("POST", "/api/jobs/kill", session, strings.NewReader(body), h)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

func TestBulkKillByIDsAnswersEachJobAndKeepsTheFence(t *testing.T) {
	s := newServer(t, nil)
	a, _ := s.startRecording("alice", "build", 0)
	b, _ := s.startPlain("alice", "lint")
	foreign, _ := s.startPlain("bob", "deploy")
	body, _ := json.Marshal(wire.KillAllRequest{IDs: []jobs.JobID{a.ID, foreign.ID, b.ID}, Reason: "release freeze"})

	res, raw := s.bulkKill("alice", string(body), nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("bulk stop: %s %s", res.Status, raw)
	}
	var got wire.KillAllResponse
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 3 {
		t.Fatalf("answered %d results, want 3: %s", len(got.Results), raw)
	}
	for i, id := range []jobs.JobID{a.ID, b.ID} {
		r := got.Results[[]int{0, 2}[i]]
		if r.ID != id || r.Result != wire.KillResultRequested || r.Job.ID != id || r.Error != "" {
			t.Errorf("result for %s = %+v, want requested with its job", id, r)
		}
		if snap := waitStatus(t, s.reg, "alice", id); snap.Status != jobs.JobStatusKilled || !strings.Contains(snap.Detail, "release freeze") {
			t.Errorf("%s settled %s %q, want killed with the one reason", snap.Name, snap.Status, snap.Detail)
		}
	}
	if r := got.Results[1]; r.ID != foreign.ID || r.Error != "no such job" || r.Job.ID != (jobs.JobID{}) || r.Result != "" {
		t.Errorf("the foreign job answered %+v, want no such job and nothing of it", r)
	}
	if snap, _ := s.reg.Get("bob", foreign.ID); snap.Status != jobs.JobStatusRunning {
		t.Fatalf("bob's job is %s after alice's bulk stop; the fence must keep it running", snap.Status)
	}
}

func TestBulkKillByMatchStopsOnlyTheMatchingLiveJobs(t *testing.T) {
	s := newServer(t, nil)
	build, _ := s.startRecording("alice", "nightly build", 0)
	lint, _ := s.startPlain("alice", "lint")
	bobs, _ := s.startRecording("bob", "nightly build", 0)

	res, raw := s.bulkKill("alice", `{"match":{"kind":"test","text":"NIGHTLY"},"reason":"x"}`, nil)
	var got wire.KillAllResponse
	if err := json.Unmarshal(raw, &got); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("bulk stop by match: %s %s", res.Status, raw)
	}
	if len(got.Results) != 1 || got.Results[0].ID != build.ID {
		t.Fatalf("stopped %s; want only alice's nightly build", raw)
	}
	for _, tc := range []struct {
		session jobs.SessionID
		id      jobs.JobID
	}{{"alice", lint.ID}, {"bob", bobs.ID}} {
		if snap, _ := s.reg.Get(tc.session, tc.id); snap.Status != jobs.JobStatusRunning {
			t.Errorf("%s is %s; the match did not select it", snap.Name, snap.Status)
		}
	}
}

func TestBulkKillRefusesABodyThatNamesNoJobs(t *testing.T) {
	s := newServer(t, nil)
	snap, _ := s.startPlain("alice", "lint")
	many, _ := json.Marshal(wire.KillAllRequest{IDs: make([]jobs.JobID, 1001)})
	for _, tc := range []struct {
		name, body string
		header     map[string]string
		want       int
	}{
		{"empty", `{}`, nil, http.StatusBadRequest},
		{"empty match", `{"match":{}}`, nil, http.StatusBadRequest},
		{"too many ids", string(many), nil, http.StatusBadRequest},
		{"a form", `{"all":true}`, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"another site", `{"all":true}`, map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"no session", `{"all":true}`, nil, http.StatusUnauthorized},
	} {
		session := "alice"
		if tc.name == "no session" {
			session = ""
		}
		res, raw := s.bulkKill(session, tc.body, tc.header)
		if res.StatusCode != tc.want {
			t.Errorf("%s: %s %s, want %d", tc.name, res.Status, raw, tc.want)
		}
	}
	if got, _ := s.reg.Get("alice", snap.ID); got.Status != jobs.JobStatusRunning {
		t.Fatalf("the job is %s after refused bulk stops, want running", got.Status)
	}
	res, raw := s.bulkKill("alice", `{"all":true}`, nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(raw), `"requested"`) {
		t.Fatalf("all: %s %s, want the job requested", res.Status, raw)
	}
}

// waitStatus waits for a job to settle.
func waitStatus(t *testing.T, r *registry.Registry, caller jobs.SessionID, id jobs.JobID) jobs.JobSnapshot {
	t.Helper()
	snap, _, err := r.Wait(t.Context(), caller, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestWaitingStartsAreListedWithTheirPlaceInLine(t *testing.T) {
	s := newServer(t, nil, registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
	_, running := s.startPlain("alice", "holds the slot")
	errs := make(chan error, 2)
	for _, label := range []string{"first in line", "second in line"} {
		go func() {
			_, err := s.reg.StartWait(t.Context(), jobs.PlainJobStart{
				JobStartCommon: jobs.JobStartCommon{Kind: "plain", Label: label, Owner: "alice"},
				Run: func(context.Context, jobs.RunningJob) (jobs.Hooks, error) {
					stop := make(chan struct{})
					return jobs.Hooks{
						Cancel: func(string) error { close(stop); return nil },
						Done:   func() (jobs.JobOutcome, error) { <-stop; return jobs.JobOutcome{Status: jobs.JobStatusKilled}, nil },
					}, nil
				},
			})
			errs <- err
		}()
		for len(s.reg.Waiting("alice")) == 0 || s.reg.Waiting("alice")[len(s.reg.Waiting("alice"))-1].Label != label {
			time.Sleep(time.Millisecond) // the goroutine queues in its own time; the queue's order is the test's
		}
	}
	get := func(session string) []wire.WaitingStart {
		res := s.request("GET", "/api/jobs/waiting", session, nil, nil)
		defer res.Body.Close()
		var got []wire.WaitingStart
		if err := json.NewDecoder(res.Body).Decode(&got); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("waiting as %s: %s %v", session, res.Status, err)
		}
		return got
	}
	got := get("alice")
	if len(got) != 2 || got[0].Label != "first in line" || got[0].Place != 1 || got[1].Place != 2 || got[0].Owner != "alice" || got[0].Since == 0 {
		t.Fatalf("alice's waiting starts = %+v; want both, in line", got)
	}
	if other := get("bob"); len(other) != 0 {
		t.Fatalf("bob sees %+v; a session's waiting starts are its own", other)
	}
	running.finish(jobs.JobStatusCompleted, "")
	for len(s.reg.Waiting("alice")) != 1 {
		time.Sleep(time.Millisecond)
	}
	if got := get("alice"); len(got) != 1 || got[0].Label != "second in line" || got[0].Place != 1 {
		t.Fatalf("after a slot freed, waiting = %+v; want the second first in line", got)
	}
	s.reg.Close(t.Context())
	<-errs
	<-errs
}
