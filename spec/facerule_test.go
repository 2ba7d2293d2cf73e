package spec_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
)

// TestAppendOnRunningJobDoesNotCompile builds testdata/facerule, which calls
// Append on a jobs.RunningJob, and requires the build to fail for exactly
// that reason: the face rule is enforced by the compiler, not by a check.
func TestAppendOnRunningJobDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goBin, "build", "-o", "/dev/null", "./testdata/facerule").CombinedOutput()
	if err == nil {
		t.Fatal("a program calling Append on a jobs.RunningJob compiled")
	}
	const want = "job.Append undefined (type jobs.RunningJob has no field or method Append)"
	if !strings.Contains(string(out), want) {
		t.Fatalf("build failed, but not because RunningJob lacks Append:\n%s", out)
	}
}

// plainFace is built the way the registry builds a plain job's face: a
// concrete type with exactly the RunningJob methods and nothing else.
type plainFace struct{ id jobs.JobID }

func (f *plainFace) ID() jobs.JobID                { return f.id }
func (f *plainFace) UpdateDetail(string)           {}
func (f *plainFace) Settle(jobs.JobOutcome, error) {}

func TestPlainFaceIsNotARecordingJob(t *testing.T) {
	var face jobs.RunningJob = &plainFace{id: jobs.NewJobID()}
	if _, ok := face.(jobs.RecordingJob); ok {
		t.Fatal("a plain face satisfies jobs.RecordingJob; a producer could assert its way to Append")
	}
	if _, ok := face.(interface {
		Append(string, jobs.AppendOptions)
	}); ok {
		t.Fatal("a plain face has an Append method")
	}
}
