package registry_test

import (
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
)

func TestAResultIsHandedToTheFirstReadAfterTheSettlementOnce(t *testing.T) {
	for _, viaFace := range []bool{true, false} {
		name := map[bool]string{true: "Settle", false: "Done"}[viaFace]
		t.Run(name, func(t *testing.T) {
			r, rec := recordedRegistry()
			p := newProducer()
			var face jobs.RecordingJob
			snap := mustStart(t, r, recordingStart("s1", "agent", p, &face))
			if read, err := r.Read("s1", snap.ID); err != nil || read.Result != "" {
				t.Fatalf("a live job's Read = %+v, %v; want no result", read, err)
			}
			outcome := jobs.JobOutcome{Status: jobs.JobStatusCompleted, Output: "done", Result: `{"answer":42}`}
			if viaFace {
				face.Settle(outcome, nil)
			} else {
				p.results <- doneResult{out: outcome}
			}
			settled := waitSettled(t, r, "s1", snap.ID)
			if !settled.HasResult || settled.ResultBytes != int64(len(outcome.Result)) {
				t.Errorf("snapshot = %+v; want it to say a result of %d bytes exists", settled, len(outcome.Result))
			}
			if got := mustGet(t, r, "s1", snap.ID); !got.HasResult {
				t.Errorf("Get = %+v; it must not take the result", got)
			}
			first, err := r.Read("s1", snap.ID)
			if err != nil || first.Result != outcome.Result || first.Output != "done" {
				t.Errorf("the first Read = %+v, %v; want the output and the result", first, err)
			}
			again, err := r.Read("s1", snap.ID)
			if err != nil || again.Result != "" || !again.Job.HasResult {
				t.Errorf("a second Read = %+v, %v; want no result, the snapshot still saying there was one", again, err)
			}
			var settledFact jobs.JobSettled
			for _, f := range rec.all() {
				if s, ok := f.(jobs.JobSettled); ok {
					settledFact = s
				}
			}
			if !settledFact.HasResult || settledFact.FactVersion() != 3 {
				t.Errorf("settled fact = %+v; want it to record that there was a result", settledFact)
			}
		})
	}
}

func TestAResultIsFencedAsTheReadIs(t *testing.T) {
	r, _ := recordedRegistry()
	var face jobs.RecordingJob
	snap := mustStart(t, r, recordingStart("s1", "agent", newProducer(), &face))
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Result: "secret"}, nil)
	if _, err := r.Read("s2", snap.ID); err == nil {
		t.Fatal("another session read the job")
	}
	if read, _ := r.Read("s1", snap.ID); read.Result != "secret" {
		t.Errorf("the owner's first Read = %+v; another session's refused read must not take the result", read)
	}
}

func TestWithoutAResultNothingSaysThereIsOne(t *testing.T) {
	r, rec := recordedRegistry()
	var face jobs.RecordingJob
	snap := mustStart(t, r, recordingStart("s1", "bash", newProducer(), &face))
	face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Output: "ok"}, nil)
	read, err := r.Read("s1", snap.ID)
	if err != nil || read.Result != "" || read.Job.HasResult || read.Job.ResultBytes != 0 {
		t.Errorf("Read = %+v, %v", read, err)
	}
	for _, f := range rec.all() {
		if s, ok := f.(jobs.JobSettled); ok && s.HasResult {
			t.Errorf("settled fact %+v says there was a result", s)
		}
	}
}
