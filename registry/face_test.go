package registry_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

func TestPlainFaceCannotReachAppend(t *testing.T) {
	r := registry.New()
	var face jobs.RunningJob
	mustStart(t, r, jobs.PlainJobStart{
		JobStartCommon: common("", "bash"),
		Run: func(_ context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			face = job
			return newProducer().hooks(), nil
		},
	})
	if _, ok := any(face).(jobs.RecordingJob); ok {
		t.Fatal("the plain face asserts to jobs.RecordingJob; it must have no Append")
	}
	if _, ok := reflect.TypeOf(face).MethodByName("Append"); ok {
		t.Fatalf("the plain face's concrete type %T has an Append method", face)
	}
}

func TestRecordingFaceAppends(t *testing.T) {
	r := registry.New()
	var face jobs.RecordingJob
	snap := mustStart(t, r, recordingStart("", "bash", newProducer(), &face))
	if face.ID() != snap.ID {
		t.Fatalf("face id %v; want %v", face.ID(), snap.ID)
	}
	face.Append("abc", jobs.AppendOptions{Channel: jobs.ChannelStdout, GapBefore: true})
	rec, err := r.ReadRecord("", snap.ID, 0)
	if err != nil || len(rec.Chunks) != 1 {
		t.Fatalf("ReadRecord = %+v, %v", rec, err)
	}
	if c := rec.Chunks[0]; c.Text != "abc" || c.Channel != jobs.ChannelStdout || !c.GapBefore || c.Offset != 0 {
		t.Fatalf("chunk %+v; want abc on stdout at 0 with gapBefore", c)
	}
}
