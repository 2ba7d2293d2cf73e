package registry_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

func TestKillAllByIDsIsFencedAndReportsEachJob(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 8}))
	mine, theirs, failing, done := newProducer(), newProducer(), newProducer(), newProducer().killOnCancel()
	failing.cancelErr = errors.New("no such process")
	a := mustStart(t, r, plainStart("s", "bash", mine))
	foreign := mustStart(t, r, plainStart("other", "bash", theirs))
	b := mustStart(t, r, plainStart("s", "bash", failing))
	c := mustStart(t, r, plainStart("s", "bash", done))
	done.finish(jobs.JobStatusCompleted, "", "")
	waitSettled(t, r, "s", c.ID)

	got := r.KillAll("s", registry.Selection{IDs: []jobs.JobID{a.ID, foreign.ID, a.ID, b.ID, c.ID, jobs.NewJobID()}}, "bulk stop")

	if len(got) != 5 {
		t.Fatalf("KillAll answered %d results %v; want one per distinct id (5)", len(got), got)
	}
	want := []struct {
		id  jobs.JobID
		res registry.KillResult
		err error
	}{
		{a.ID, registry.KillRequested, nil},
		{foreign.ID, 0, registry.ErrForeignJob},
		{b.ID, 0, failing.cancelErr},
		{c.ID, registry.KillAlreadyFinished, nil},
		{got[4].ID, 0, registry.ErrUnknownJob},
	}
	for i, w := range want {
		if got[i].ID != w.id || got[i].Result != w.res || !errors.Is(got[i].Err, w.err) || (w.err == nil) != (got[i].Err == nil) {
			t.Errorf("result %d = %v; want %s %v %v", i, got[i], w.id, w.res, w.err)
		}
	}
	if n := len(theirs.cancelReasons()); n != 0 {
		t.Fatalf("the foreign job's Cancel was called %d times; the fence must keep KillAll off it", n)
	}
	if got := mine.cancelReasons(); !slices.Equal(got, []string{"bulk stop"}) {
		t.Fatalf("the repeated id was cancelled with %v; want once, with the one reason", got)
	}
	if s := mustGet(t, r, "s", a.ID); s.Status != jobs.JobStatusStopping || !s.Reported {
		t.Fatalf("the killed job is %s reported=%v; want stopping and reported, as Kill leaves it", s.Status, s.Reported)
	}
	if s := mustGet(t, r, "s", b.ID); s.Status != jobs.JobStatusRunning {
		t.Fatalf("the job whose Cancel failed is %s; want running still", s.Status)
	}
}

func TestKillAllByFilterSelectsOnlyTheCallersLiveMatches(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 8}))
	prods := map[string]*producer{}
	start := func(owner jobs.SessionID, kind string) jobs.JobSnapshot {
		p := newProducer().killOnCancel()
		s := mustStart(t, r, plainStart(owner, kind, p))
		prods[s.Name+string(owner)] = p
		return s
	}
	b1 := start("s", "bash")
	start("s", "python")
	b2 := start("", "bash") // unowned: every caller sees it
	start("other", "bash")
	settled := start("s", "bash")
	if _, err := r.Kill("s", settled.ID, "earlier"); err != nil {
		t.Fatal(err)
	}
	waitSettled(t, r, "s", settled.ID)

	got := r.KillAll("s", registry.Selection{Match: func(s jobs.JobSnapshot) bool { return s.Kind == "bash" }}, "bulk")

	var ids []jobs.JobID
	for _, k := range got {
		if k.Err != nil || k.Result != registry.KillRequested {
			t.Errorf("%v: want requested", k)
		}
		ids = append(ids, k.ID)
	}
	if want := []jobs.JobID{b1.ID, b2.ID}; !slices.Equal(ids, want) {
		t.Fatalf("KillAll stopped %v; want the caller's live bash jobs in registration order %v", ids, want)
	}
	for name, p := range prods {
		if name == "bash-4other" || name == "python-1s" {
			if n := len(p.cancelReasons()); n != 0 {
				t.Errorf("%s: Cancel called %d times; the filter does not select it", name, n)
			}
		}
	}
}

func TestKillAllWithoutMatchStopsEveryLiveJob(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 600}))
	var ids []jobs.JobID
	for range 500 {
		ids = append(ids, mustStart(t, r, plainStart("s", "bash", newProducer().killOnCancel())).ID)
	}
	got := r.KillAll("s", registry.Selection{}, "stop everything")
	if len(got) != len(ids) {
		t.Fatalf("%d results; want %d", len(got), len(ids))
	}
	for i, k := range got {
		if k.ID != ids[i] || k.Err != nil || k.Result != registry.KillRequested {
			t.Fatalf("result %d = %v; want %s requested", i, k, ids[i])
		}
	}
	for _, id := range ids {
		if s := waitSettled(t, r, "s", id); s.Status != jobs.JobStatusKilled || s.Detail != "stop everything" {
			t.Fatalf("%s settled %s %q; want killed with the one reason", s.Name, s.Status, s.Detail)
		}
	}
}
