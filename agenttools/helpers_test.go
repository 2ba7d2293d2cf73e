package agenttools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// t0 is the fixture clock's first reading; each reading after it is one
// second later, so snapshots' times are predictable.
var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// A fixture is a registry with predictable ids and times, and the tools
// over it.
type fixture struct {
	t     testing.TB
	reg   *registry.Registry
	tools *agenttools.Tools

	mu   sync.Mutex
	ids  int
	tick int
}

func newFixture(t testing.TB, opts ...agenttools.Option) *fixture {
	t.Helper()
	f := &fixture{t: t}
	f.reg = registry.New(registry.WithIDs(f.nextID), registry.WithClock(registry.ClockFunc(f.now)))
	t.Cleanup(func() { _ = f.reg.Close(context.Background()) })
	tools, err := agenttools.New(f.reg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	f.tools = tools
	return f
}

// jobID is the n-th id the fixture issues.
func jobID(n int) jobs.JobID {
	return jobs.JobID(uuid.MustParse(fmt.Sprintf("00000000-0000-4000-8000-%012d", n)))
}

func (f *fixture) nextID() jobs.JobID {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ids++
	return jobID(f.ids)
}

func (f *fixture) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tick++
	return t0.Add(time.Duration(f.tick-1) * time.Second)
}

// A fakeJob is a recording job the test drives: it writes, and settles
// through its face. With a consuming cursor (ReadOutput) it hands out
// what it wrote once, as procjob does; without one the registry's Read
// returns its final output once it has settled.
type fakeJob struct {
	snap jobs.JobSnapshot
	face jobs.RecordingJob

	mu        sync.Mutex
	unread    strings.Builder
	cancelErr error // Cancel fails with it
	cancels   []string
}

// jobSpec says how to start a fake job.
type jobSpec struct {
	owner     jobs.SessionID
	kind      string
	label     string
	labels    map[string]string
	consuming bool // the job has a ReadOutput
}

func (f *fixture) start(spec jobSpec) *fakeJob {
	f.t.Helper()
	if spec.kind == "" {
		spec.kind = "sh"
	}
	if spec.label == "" {
		spec.label = "a test job"
	}
	j := &fakeJob{}
	snap, err := f.reg.Start(context.Background(), jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: spec.kind, Label: spec.label, Owner: spec.owner, Labels: spec.labels},
		Run: func(_ context.Context, face jobs.RecordingJob) (jobs.Hooks, error) {
			j.face = face
			h := jobs.Hooks{Cancel: j.cancel}
			if spec.consuming {
				h.ReadOutput = j.readOutput
			}
			return h, nil
		},
	})
	if err != nil {
		f.t.Fatal(err)
	}
	j.snap = snap
	return j
}

func (j *fakeJob) write(s string) {
	j.mu.Lock()
	j.unread.WriteString(s)
	j.mu.Unlock()
	j.face.Append(s, jobs.AppendOptions{})
}

func (j *fakeJob) readOutput() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := j.unread.String()
	j.unread.Reset()
	return s
}

// cancel is the job's Cancel: it fails with cancelErr, or ends the job
// killed at once, as a process that dies of SIGTERM does.
func (j *fakeJob) cancel(reason string) error {
	j.mu.Lock()
	j.cancels = append(j.cancels, reason)
	err := j.cancelErr
	j.mu.Unlock()
	if err != nil {
		return err
	}
	j.face.Settle(jobs.JobOutcome{Status: jobs.JobStatusKilled, Detail: "terminated"}, nil)
	return nil
}

func (j *fakeJob) settle(status jobs.JobStatus, detail, output string) {
	j.face.Settle(jobs.JobOutcome{Status: status, Detail: detail, Output: output}, nil)
}

// call calls a tool and returns its result, or fails the test.
func call(t testing.TB, s *agenttools.Toolset, name string, args any) json.RawMessage {
	t.Helper()
	out, err := s.Call(context.Background(), name, argsJSON(t, args))
	if err != nil {
		t.Fatalf("%s(%s): %v", name, argsJSON(t, args), err)
	}
	return out
}

// callErr calls a tool that must fail and returns its error.
func callErr(t testing.TB, s *agenttools.Toolset, name string, args any) *agenttools.Error {
	t.Helper()
	out, err := s.Call(context.Background(), name, argsJSON(t, args))
	if err == nil {
		t.Fatalf("%s(%s) = %s, want an error", name, argsJSON(t, args), out)
	}
	var e *agenttools.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %T %v is not an *agenttools.Error", name, err, err)
	}
	return e
}

// argsJSON is args as JSON: a string as it is, anything else encoded.
func argsJSON(t testing.TB, args any) json.RawMessage {
	t.Helper()
	if s, ok := args.(string); ok {
		return json.RawMessage(s)
	}
	data, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// decode decodes a tool's result into out with its generated decoder.
func decode[T any](t testing.TB, data json.RawMessage) T {
	t.Helper()
	var out T
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("decode %T from %s: %v", out, data, err)
	}
	return out
}
