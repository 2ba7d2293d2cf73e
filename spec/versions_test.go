package spec_test

import (
	"bufio"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
)

// TestV1HistoryDecodesAsTheNewestVersion reads job facts written by a build
// that knew only job/settled v1 (testdata/settled-v1.jsonl, committed as such
// and never regenerated) and requires every settled fact to come back as
// today's jobs.JobSettled, upcast with the cause v1 can vouch for.
func TestV1HistoryDecodesAsTheNewestVersion(t *testing.T) {
	f, err := os.Open("testdata/settled-v1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var settled []jobs.JobSettled
	lines := bufio.NewScanner(f)
	for n := 1; lines.Scan(); n++ {
		fact, err := jobs.DecodeFact(lines.Bytes())
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if s, ok := fact.(jobs.JobSettled); ok {
			settled = append(settled, s)
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id     string
		status jobs.JobStatus
		cause  jobs.SettlementCause
		label  string
	}{
		// The producer reported: its Done settled the job.
		{"6ba7b810-9dad-11d1-80b4-00c04fd430c8", jobs.JobStatusCompleted, jobs.SettlementCauseProducer, "build"},
		// Forced settlements: v1 cannot say whether a kill or teardown won, so no cause.
		{"0c9b5e58-2a2f-4a53-9d2d-3f0c2a8f7b11", jobs.JobStatusKilled, "", "watch"},
		{"9f1d3a52-7c1e-4b8e-8a55-0d5f3c2e6a90", jobs.JobStatusFailed, "", "review"},
	}
	if len(settled) != len(want) {
		t.Fatalf("decoded %d settled facts, want %d", len(settled), len(want))
	}
	for i, w := range want {
		s := settled[i]
		if s.JobID.String() != w.id || s.Status != w.status || s.Cause != w.cause || s.Registration.Label != w.label {
			t.Errorf("fact %d = %+v; want id %s, status %s, cause %q, label %s", i, s, w.id, w.status, w.cause, w.label)
		}
		if s.FactVersion() != 3 {
			t.Errorf("fact %d decoded as version %d, want the newest, 3", i, s.FactVersion())
		}
	}
}

// TestEncodeWritesOnlyTheNewestVersion: an upcast v1 fact re-encodes as v3,
// so a journal rewritten by this build holds no v1 records.
func TestEncodeWritesOnlyTheNewestVersion(t *testing.T) {
	line := `{"type":"job/settled","v":1,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1,"status":"completed","producerReported":true,"registration":{"registeredAt":0,"owner":"s","kind":"k","label":"l","ordinal":1,"record":false}}}`
	fact, err := jobs.DecodeFact([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	data, err := jobs.EncodeFact(fact)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), `{"type":"job/settled","v":3,`) || !strings.Contains(string(data), `"cause":"producer"`) {
		t.Errorf("re-encoded as %s", data)
	}
}

func TestV1FactMissingAFieldIsStillRefused(t *testing.T) {
	_, err := jobs.DecodeFact([]byte(`{"type":"job/settled","v":1,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1}}`))
	if !errors.Is(err, jobs.ErrMissingField) {
		t.Errorf("err = %v, want ErrMissingField: an upcaster never sees an incomplete v1", err)
	}
}

// TestRegisteredV1DecodesWithoutAHost reads the job/registered v1 facts of
// testdata/settled-v1.jsonl as today's jobs.JobRegistered (v3): every field
// v1 had, no host and no labels, which v1 never recorded. A v3 fact carries both
// and re-encodes as v3.
func TestRegisteredV1DecodesWithoutAHost(t *testing.T) {
	f, err := os.Open("testdata/settled-v1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var registered []jobs.JobRegistered
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if !strings.Contains(lines.Text(), `"type":"job/registered","v":1`) {
			continue
		}
		fact, err := jobs.DecodeFact(lines.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		registered = append(registered, fact.(jobs.JobRegistered))
	}
	if len(registered) == 0 {
		t.Fatal("testdata holds no job/registered v1 fact")
	}
	first := registered[0]
	if first.FactVersion() != 3 || first.Labels != nil || first.Label != "build" || first.ToolCall != "call-7" || !first.Record || first.Host != (jobs.JobHost{}) {
		t.Fatalf("upcast v1 registration: %+v", first)
	}
	inc, _ := jobs.ParseIncarnationID("6ba7b812-9dad-11d1-80b4-00c04fd430c8")
	first.Host = jobs.JobHost{Name: "web-1", Incarnation: inc, Address: "http://10.0.0.7:8080"}
	first.Labels = map[string]string{"team": "infra"}
	data, err := jobs.EncodeFact(first)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), `{"type":"job/registered","v":3,`) || !strings.Contains(string(data), `"host":{"name":"web-1","incarnation":"6ba7b812-9dad-11d1-80b4-00c04fd430c8","address":"http://10.0.0.7:8080"},"labels":{"team":"infra"}`) {
		t.Fatalf("a v3 registration encodes as %s", data)
	}
	back, err := jobs.DecodeFact(data)
	if err != nil || !reflect.DeepEqual(back.(jobs.JobRegistered), first) {
		t.Fatalf("round trip: %+v, %v; want %+v", back, err, first)
	}
}
