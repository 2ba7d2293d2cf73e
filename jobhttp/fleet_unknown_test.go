package jobhttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// The facts a host of a newer build writes to the shared history, as a
// fleet of this build meets them during a rolling upgrade: job/registered
// at a version this build does not know (its label renamed title), a
// settlement whose cause is a value this build does not know, and a fact
// type added since.
const (
	newerRegistration = `{"type":"job/registered","v":9,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1700000000000,"owner":"s1","kind":"deploy","title":"ship it","ordinal":4,"record":false,"attempt":2}}`
	newerSettlement   = `{"type":"job/settled","v":2,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1700000001000,"status":"killed","producerReported":false,"registration":{"registeredAt":1700000000000,"owner":"s1","kind":"deploy","label":"","ordinal":4,"record":false},"cause":"preempted"}}`
	newerFactType     = `{"type":"job/noted","v":1,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","note":"hi"}}`
	subagentFact      = `{"type":"subagent/message-claimed","v":1,"data":{"message":"6ba7b811-9dad-11d1-80b4-00c04fd430c8","at":1,"run":"6ba7b812-9dad-11d1-80b4-00c04fd430c8"}}`
)

// TestFleetShowsAJobANewerBuildWroteWithWhatItCanRead: the fleet view's
// tolerant reading rule. A job registered by a host of a newer build shows
// in the roster and the history, with every field this build can read (its
// label, renamed in the newer version, empty) and its interval marked
// partial; its settlement with a cause this build does not know settles it;
// each of those facts and the new fact type are counted by Fleet.Unknown,
// and a fact of this build's subagent vocabulary is not.
func TestFleetShowsAJobANewerBuildWroteWithWhatItCanRead(t *testing.T) {
	schema := pgtest.Schema(t)
	ctx := context.Background()
	store, err := pgstore.Open(ctx, pgtest.DSN(t), pgstore.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(ctx)
	fleet := newTestFleet(t, schema, 2*time.Second)
	id, _ := jobs.ParseJobID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")

	if _, err := store.Append(ctx, "s1", journal.Entry{Payload: []byte(newerRegistration)}, journal.Entry{Payload: []byte(newerFactType)}, journal.Entry{Payload: []byte(subagentFact)}); err != nil {
		t.Fatal(err)
	}
	r := fleet.waitRoster("s1", "the newer build's job", func(r []fleetJob) bool { return len(r) == 1 })
	if j := r[0]; j.ID != id || j.Kind != "deploy" || j.Ordinal != 4 || j.Name != "deploy-4" || j.Label != "" || j.Status != jobs.JobStatusRunning {
		t.Fatalf("the job a newer build registered shows as %+v; want deploy-4 running, with the label it renamed empty", j.JobSnapshot)
	}
	if _, err := store.Append(ctx, "s1", journal.Entry{Payload: []byte(newerSettlement)}); err != nil {
		t.Fatal(err)
	}
	fleet.waitRoster("s1", "the newer build's settlement", func(r []fleetJob) bool {
		return len(r) == 1 && r[0].Status == jobs.JobStatusKilled
	})
	res := fleet.request("GET", "/api/history", "s1", nil, nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("history: %s: %s", res.Status, body)
	}
	var ivs []wire.Interval
	if err := json.Unmarshal(body, &ivs); err != nil {
		t.Fatalf("history %s: %v", body, err)
	}
	if len(ivs) != 1 || !ivs[0].Partial || !ivs[0].Complete || ivs[0].Status != jobs.JobStatusKilled || ivs[0].Cause != "" {
		t.Fatalf("history = %s; want the job's interval complete, killed, partial, with no cause", body)
	}
	kinds, counts := fleet.fleet.Unknown()
	want := []codec.FactKind{{Type: "job/noted", V: 1}, {Type: "job/registered", V: 9}, {Type: "job/settled", V: 2}}
	if !slices.Equal(kinds, want) || !slices.Equal(counts, []int{1, 1, 1}) {
		t.Fatalf("Fleet.Unknown = %v %v; want %v, one each, and no subagent fact", kinds, counts, want)
	}
}
