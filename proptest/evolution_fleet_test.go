package proptest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// TestFleetShowsEveryBuildsJobs is the fleet view's tolerant reading rule
// (decision 0174) as a property, against the test server: each check's
// session gets one to five jobs whose facts hosts of different builds
// wrote — job/registered v1 (an older build), v2 (this one) or a version no
// build of this vocabulary knows, with its label renamed; a settlement or
// none, its cause one this build knows or not; now and then a fact type
// added since. The fleet's roster then shows every job, with the kind,
// ordinal and label this build can read (the label empty where a newer
// version renamed it) and the status its settlement says (running without
// one), and Fleet.Unknown grows by exactly the facts this build does not
// fully know.
func TestFleetShowsEveryBuildsJobs(t *testing.T) {
	dsn := pgtest.DSN(t)
	setChecks(t, pgChecks(t))
	ctx := context.Background()
	store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(pgtest.Schema(t)), pgstore.WithPollInterval(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(ctx)
	fleet, err := jobhttp.NewFleet(store, func(r *http.Request) (jobs.SessionID, error) { return jobs.SessionID(r.Header.Get("X-Session")), nil }, fleetPropKey,
		jobhttp.WithLease(time.Hour),
	)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fleet)
	defer func() {
		srv.Close()
		fleet.Close(ctx)
	}()
	checkNo := 0
	rapid.Check(t, func(rt *rapid.T) {
		checkNo++
		before := fleetUnknown(fleet)
		session := fmt.Sprintf("evo-%d", checkNo)
		type expect struct {
			kind, label, status string
			ordinal             int
		}
		want := map[string]expect{}
		var payloads []string
		unknown := 0
		for i := range rapid.IntRange(1, 5).Draw(rt, "jobs") {
			id := jobs.NewJobID().String()
			e := expect{kind: fmt.Sprintf("k%d", i), label: fmt.Sprintf("job %d", i), ordinal: i + 1, status: "running"}
			reg := fmt.Sprintf(`"jobId":%q,"at":1,"owner":%q,"kind":%q,"ordinal":%d,"record":false`, id, session, e.kind, e.ordinal)
			switch rapid.SampledFrom([]string{"v1", "v2", "newer"}).Draw(rt, "registration") {
			case "v1":
				payloads = append(payloads, `{"type":"job/registered","v":1,"data":{`+reg+`,"label":"`+e.label+`"}}`)
			case "v2":
				payloads = append(payloads, `{"type":"job/registered","v":2,"data":{`+reg+`,"label":"`+e.label+`"}}`)
			default:
				payloads = append(payloads, `{"type":"job/registered","v":7,"data":{`+reg+`,"title":"`+e.label+`","attempt":2}}`)
				e.label = ""
				unknown++
			}
			if settle := rapid.SampledFrom([]string{"none", "known", "newer"}).Draw(rt, "settlement"); settle != "none" {
				cause := "kill"
				if settle == "newer" {
					cause = "preempted"
					unknown++
				}
				payloads = append(payloads, fmt.Sprintf(`{"type":"job/settled","v":2,"data":{"jobId":%q,"at":2,"status":"killed","producerReported":false,"registration":{"registeredAt":1,"owner":%q,"kind":%q,"label":"","ordinal":%d,"record":false},"cause":%q}}`, id, session, e.kind, e.ordinal, cause))
				e.status = "killed"
			}
			if rapid.IntRange(0, 3).Draw(rt, "noted") == 0 {
				payloads = append(payloads, fmt.Sprintf(`{"type":"job/noted","v":1,"data":{"jobId":%q}}`, id))
				unknown++
			}
			want[id] = e
		}
		for _, p := range payloads {
			if _, err := store.Append(ctx, journal.Stream(session), journal.Entry{Payload: []byte(p)}); err != nil {
				rt.Fatal(err)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := fleetRoster(rt, srv.URL, session)
			done := len(got) == len(want)
			for id, e := range want {
				g, ok := got[id]
				if !ok || string(g.Status) != e.status {
					done = false
					continue
				}
				if g.Kind != e.kind || g.Label != e.label || g.Ordinal != e.ordinal {
					rt.Fatalf("job %s shows as %+v; want %+v", id, g, e)
				}
			}
			if done {
				break
			}
			if time.Now().After(deadline) {
				rt.Fatalf("the roster of %s is %+v; want %+v\n%v", session, got, want, payloads)
			}
			time.Sleep(20 * time.Millisecond)
		}
		// The tail may still be applying this check's last facts: wait
		// until the count reaches what they add, and no further.
		for {
			total := fleetUnknown(fleet)
			if total == before+unknown {
				break
			}
			if total > before+unknown || time.Now().After(deadline) {
				rt.Fatalf("Fleet.Unknown counts %d; want %d (%d before, %d of this check)", total, before+unknown, before, unknown)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// fleetUnknown is how many facts the fleet counted as not fully read.
func fleetUnknown(f *jobhttp.Fleet) int {
	_, counts := f.Unknown()
	total := 0
	for _, n := range counts {
		total += n
	}
	return total
}

// fleetRoster reads session's roster from the fleet at url, by job id.
func fleetRoster(t *rapid.T, url, session string) map[string]jobs.JobSnapshot {
	req, _ := http.NewRequest("GET", url+"/api/jobs", nil)
	req.Header.Set("X-Session", session)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var roster []jobs.JobSnapshot
	if res.StatusCode != http.StatusOK || json.Unmarshal(body, &roster) != nil {
		t.Fatalf("roster of %s: %s: %s", session, res.Status, body)
	}
	out := map[string]jobs.JobSnapshot{}
	for _, j := range roster {
		out[j.ID.String()] = j
	}
	return out
}
