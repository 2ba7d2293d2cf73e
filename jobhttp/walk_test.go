package jobhttp_test

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
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

// asAlice makes a walked request alice's, for a Host the servers answer.
func asAlice(r *http.Request) {
	r.Host = "localhost"
	r.Header.Set(sessionHeader, "alice")
}

// jobValue is an id the walk sends for a route's {id}: the job's, where the
// route's id is a job's.
func jobValue(id jobs.JobID) func(string, httproute.Param) string {
	return func(route string, p httproute.Param) string {
		if p.Type == "jobs.JobID" {
			return id.String()
		}
		return ""
	}
}

// noChildren are subagents with none under any root.
type noChildren struct{}

func (noChildren) Tree(context.Context, jobs.SessionID) ([]wire.SubagentNode, error) {
	return []wire.SubagentNode{}, nil
}

func (noChildren) History(context.Context, jobs.SessionID, jobs.SessionID) ([]wire.SubagentEvent, error) {
	return nil, jobhttp.ErrNoSuchChild
}

// TestEveryRouteOfEveryServerAnswersTheWireSpec walks spec/wire.yaml's
// route table (wire.Routes) against a Handler serving everything it can, a
// Handler without history or subagents, and a Fleet: every route served or
// declined by name, every other method a 405 with Allow, unknown paths and
// malformed parameters refused, every refusal a wire.ErrorBody. A route the
// spec adds is walked here without a change.
func TestEveryRouteOfEveryServerAnswersTheWireSpec(t *testing.T) {
	store := subagenttest.NewMemStore()
	full := newServer(t, []jobhttp.Option{jobhttp.WithHistory(jobhttp.StoreHistory(store)), jobhttp.WithSubagents(noChildren{})},
		registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
	snap, p := full.startRecording("alice", "walked", 0)
	p.job.Append("walked\n", jobs.AppendOptions{})
	bare := newServer(t, nil)
	fleet, fleetJob := newWalkedFleet(t)
	total := 0
	for _, tc := range []struct {
		name     string
		h        http.Handler
		job      jobs.JobID
		declined []string
	}{
		{"Handler", full.h, snap.ID, []string{"ListFleetHosts", "JobHistory"}},
		{"Handler without history or subagents", bare.h, jobs.NewJobID(), []string{"ListFleetHosts", "ListHistory", "SearchHistory", "JobHistory", "ArchivedHistory", "ListSubagents", "WatchSubagents", "SubagentHistory"}},
		{"Fleet", fleet, fleetJob, []string{"KillJobs", "ListWaiting", "JobHistory", "ArchivedHistory", "ListSubagents", "WatchSubagents", "SubagentHistory", "Watch", "OpenView", "CloseView"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			total += routetest.Walk(t, wire.Routes(), tc.h, routetest.Options{
				Authorize: asAlice,
				Declined:  tc.declined,
				Value:     jobValue(tc.job),
				Body: func(route string) string {
					switch route {
					case "SendInput":
						return `{"text":"ls\n"}`
					case "OpenView":
						return `{"view":"r","route":"WatchJobs"}`
					}
					return ""
				},
			})
		})
	}
	t.Logf("walked %d routes against 3 servers in %d requests", len(wire.Routes().Routes), total)
}

// A memTailer tails a MemStore: what it holds, then nothing until the
// context ends, which is all a Fleet's tail needs.
type memTailer struct{ *subagenttest.MemStore }

func (m memTailer) Tail(ctx context.Context, after journal.Position) iter.Seq2[journal.Record, error] {
	return func(yield func(journal.Record, error) bool) {
		for rec, err := range m.ReadAll(ctx, after) {
			if !yield(rec, err) || err != nil {
				return
			}
		}
		<-ctx.Done()
	}
}

// newWalkedFleet is a Fleet over the history of one host serving alice's
// recording job, and that job's id.
func newWalkedFleet(t *testing.T) (*jobhttp.Fleet, jobs.JobID) {
	t.Helper()
	return newWalkedFleetWith(t, nil)
}

// newWalkedFleetWith is newWalkedFleet with the fleet options more(store)
// returns, given the shared history the host records into.
func newWalkedFleetWith(t *testing.T, more func(journal.Store) []jobhttp.FleetOption) (*jobhttp.Fleet, jobs.JobID) {
	t.Helper()
	store := subagenttest.NewMemStore()
	var host *jobhttp.Handler
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { host.ServeHTTP(w, r) }))
	place := jobs.JobHost{Name: "walked", Incarnation: jobs.NewIncarnationID(), Address: "http://" + srv.Listener.Addr().String()}
	reg := registry.New(registry.WithRecorder(jobhistory.NewHostRecorder(store, place)))
	host, err := jobhttp.New(reg, jobhttp.TrustFleet([]jobhttp.FleetKey{testFleetKey}, nil))
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	s := &server{t: t, reg: reg, h: host, srv: srv}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		host.Close(ctx)
		srv.Close()
		reg.Close(ctx)
	})
	snap, _ := s.startRecording("alice", "walked", 0)
	opts := []jobhttp.FleetOption{jobhttp.WithPeers(map[jobs.HostID]string{place.Name: place.Address})}
	if more != nil {
		opts = append(opts, more(store)...)
	}
	f, err := jobhttp.NewFleet(memTailer{store}, testSession, testFleetKey, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		req := httptest.NewRequest("GET", "/api/jobs/"+snap.ID.String(), nil)
		asAlice(req)
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, req)
		if rec.Code == http.StatusOK {
			return f, snap.ID
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fleet never saw the host's job: %d %s", rec.Code, rec.Body)
		}
	}
}
