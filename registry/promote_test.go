package registry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

func TestPromoteRecordsThePromotionAndWhenTheCommandStarted(t *testing.T) {
	rec := &memRecorder{}
	clock := &fixedClock{t: time.UnixMilli(1_700_000_005_000)}
	r := registry.New(registry.WithRecorder(rec), registry.WithClock(clock))
	p := newProducer()
	var face jobs.RecordingJob
	commandStarted := time.UnixMilli(1_700_000_000_000)
	snap, err := r.Promote(t.Context(), recordingStart("s1", "sh", p, &face), commandStarted)
	if err != nil {
		t.Fatal(err)
	}
	if snap.StartedAt != 1_700_000_005_000 || snap.Status != jobs.JobStatusRunning || snap.Name != "sh-1" {
		t.Errorf("snapshot = %+v; want a running job whose interval starts at the promotion", snap)
	}
	facts := rec.all()
	if len(facts) != 1 {
		t.Fatalf("facts = %v", facts)
	}
	reg := facts[0].(jobs.JobRegistered)
	if !reg.Promoted || reg.CommandStartedAt != 1_700_000_000_000 || reg.At != 1_700_000_005_000 || reg.FactVersion() != 3 {
		t.Errorf("registered = %+v; want promoted, at the promotion, with the command's start", reg)
	}
	// A plain start says nothing of a promotion.
	mustStart(t, r, plainStart("s1", "bash", newProducer()))
	if plain := rec.all()[1].(jobs.JobRegistered); plain.Promoted || plain.CommandStartedAt != 0 {
		t.Errorf("a plain start registered as %+v", plain)
	}
}

func TestPromoteIsAdmittedAsAnyStart(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{MaxPerOwner: 1}))
	mustStart(t, r, plainStart("s1", "bash", newProducer()))
	ran := false
	start := jobs.PlainJobStart{JobStartCommon: common("s1", "sh"), Run: func(_ context.Context, _ jobs.RunningJob) (jobs.Hooks, error) {
		ran = true
		return newProducer().hooks(), nil
	}}
	if _, err := r.Promote(t.Context(), start, time.Now()); !errors.Is(err, registry.ErrTooManyJobs) {
		t.Fatalf("Promote past the owner's limit = %v; want ErrTooManyJobs", err)
	}
	if ran {
		t.Error("a refused promotion ran its starter: the caller must keep the producer to stop it")
	}
	if _, err := r.Promote(t.Context(), plainStart("s2", "sh", newProducer()), time.Time{}); !errors.Is(err, registry.ErrInvalidStart) {
		t.Errorf("Promote without the command's start = %v; want ErrInvalidStart", err)
	}
}

func TestPromotedJobIsFencedAsAnyJob(t *testing.T) {
	r := registry.New()
	snap, err := r.Promote(t.Context(), plainStart("s1", "sh", newProducer()), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get("s2", snap.ID); !errors.Is(err, registry.ErrForeignJob) {
		t.Errorf("another session's Get = %v; want ErrForeignJob", err)
	}
	if _, err := r.Get("s1", snap.ID); err != nil {
		t.Errorf("the owner's Get = %v", err)
	}
}
