package registry_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"reflect"
	"strings"
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

// TestFaceRuleDoesNotCompile builds testdata/facerule, which calls Append on a
// jobs.RunningJob, and expects the compiler to refuse it for that reason.
func TestFaceRuleDoesNotCompile(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH: %v", err)
	}
	cmd := exec.Command(goBin, "build", "-o", os.DevNull, "./testdata/facerule")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("go build of the face-rule snippet = %v; want a compile failure\n%s", err, out)
	}
	if !strings.Contains(string(out), "has no field or method Append") {
		t.Fatalf("go build failed for another reason:\n%s", out)
	}
}
