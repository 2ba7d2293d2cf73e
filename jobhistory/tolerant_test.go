package jobhistory

import (
	"reflect"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/testjobs"
)

// readAll reads each payload as jobs.ReadFact does, the way a tolerant
// reader feeds the projections.
func readAll(t *testing.T, payloads ...string) []jobs.Fact {
	t.Helper()
	var out []jobs.Fact
	for _, p := range payloads {
		f, err := jobs.ReadFact([]byte(p))
		if err != nil {
			t.Fatalf("ReadFact(%s): %v", p, err)
		}
		out = append(out, f)
	}
	return out
}

// The intervals' tolerant reading rule (decision 0174): a registration and
// a settlement a newer build wrote project their job with what this build
// reads of them, the interval marked Partial; a fact of a type this build
// does not know is skipped; Intervals and StreamIntervals agree.
func TestIntervalsProjectANewerBuildsJobFactsInPart(t *testing.T) {
	id := testjobs.ID(7).String()
	facts := readAll(t,
		`{"type":"job/registered","v":9,"data":{"jobId":"`+id+`","at":1000,"owner":"s1","kind":"deploy","title":"ship it","ordinal":4,"record":false}}`,
		`{"type":"job/noted","v":1,"data":{"jobId":"`+id+`"}}`,
		`{"type":"job/settled","v":2,"data":{"jobId":"`+id+`","at":2000,"status":"killed","producerReported":false,"registration":{"registeredAt":1000,"owner":"s1","kind":"deploy","label":"","ordinal":4,"record":false},"cause":"preempted"}}`,
	)
	facts = append(facts, testjobs.Registered(8))
	want := []Interval{
		{JobID: testjobs.ID(7), Owner: "s1", Kind: "deploy", Ordinal: 4, RegisteredAt: 1000, SettledAt: 2000,
			Status: jobs.JobStatusKilled, Complete: true, Partial: true},
		OpenInterval(testjobs.Registered(8)),
	}
	ivs, err := Intervals(seqOf(nil, facts...))
	if err != nil || !reflect.DeepEqual(ivs, want) {
		t.Fatalf("Intervals = %+v, %v\nwant %+v", ivs, err, want)
	}
	var streamed []Interval
	for iv, err := range StreamIntervals(seqOf(nil, facts...)) {
		if err != nil {
			t.Fatal(err)
		}
		streamed = append(streamed, iv)
	}
	if !reflect.DeepEqual(streamed, want) {
		t.Fatalf("StreamIntervals = %+v\nwant %+v", streamed, want)
	}
}

// Readable gives nothing for an unknown fact that names no job: a type
// this build does not know, or a newer registration without a JobID.
func TestReadableSkipsWhatNamesNoJob(t *testing.T) {
	for _, p := range []string{
		`{"type":"job/noted","v":1,"data":{}}`,
		`{"type":"job/registered","v":9,"data":{"owner":"s1","kind":"deploy"}}`,
	} {
		if f, partial := Readable(readAll(t, p)[0]); f != nil || partial {
			t.Errorf("Readable(%s) = %v, %v; want nothing", p, f, partial)
		}
	}
	known := testjobs.Registered(1)
	if f, partial := Readable(known); !reflect.DeepEqual(f, known) || partial {
		t.Errorf("Readable of a fact this build knows = %v, %v; want it, whole", f, partial)
	}
}
