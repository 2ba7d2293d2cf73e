//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
)

// shellFixture is a runtime with one session's Toolset and a directory
// whose file gate a command waits for.
type shellFixture struct {
	t   *testing.T
	rt  *runtime
	ts  *agenttools.Toolset
	dir string
}

func newShellFixture(t *testing.T) *shellFixture {
	rt, err := newRuntime("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rt.reg.Close(context.Background())
		rt.store.Close(context.Background())
		os.RemoveAll(rt.temp)
	})
	return &shellFixture{t: t, rt: rt, ts: rt.tools.For("s"), dir: t.TempDir()}
}

func (f *shellFixture) call(ctx context.Context, tool string, args map[string]any, into any) {
	f.t.Helper()
	a, _ := json.Marshal(args)
	res, err := f.ts.Call(ctx, tool, a)
	if err != nil {
		f.t.Fatalf("%s %s: %v", tool, a, err)
	}
	if err := json.Unmarshal(res, into); err != nil {
		f.t.Fatalf("%s %s answered %s: %v", tool, a, res, err)
	}
}

// gated is a command that prints first, waits for the fixture's gate and
// prints second.
func (f *shellFixture) gated() string {
	return "printf 'first\\n'; while [ ! -e " + filepath.Join(f.dir, "gate") + " ]; do sleep 0.01; done; printf 'second\\n'"
}

func (f *shellFixture) open() {
	if err := os.WriteFile(filepath.Join(f.dir, "gate"), nil, 0o644); err != nil {
		f.t.Fatal(err)
	}
}

type shellAnswer struct {
	JobID    jobs.JobID
	Name     string
	Promoted bool
	Output   string
	Status   jobs.JobStatus
	Detail   string
}

type waitAnswer struct {
	Job      struct{ Status jobs.JobStatus }
	Finished bool
	Notice   string
}

type outputAnswer struct {
	Output string
	Status jobs.JobStatus
}

func TestShellWithATimeoutThatEndsInTimeReturnsItsOutputAndNoJob(t *testing.T) {
	f := newShellFixture(t)
	var got shellAnswer
	f.call(t.Context(), "shell", map[string]any{"command": "echo hi; exit 3", "timeoutSeconds": 30}, &got)
	if got.Promoted || got.JobID != (jobs.JobID{}) || got.Output != "hi\n" || got.Status != jobs.JobStatusFailed || got.Detail != "exit status 3" {
		t.Errorf("shell = %+v; want the output and the end, no job", got)
	}
	var list struct{ Jobs []any }
	f.call(t.Context(), "job_list", map[string]any{}, &list)
	if len(list.Jobs) != 0 {
		t.Errorf("job_list = %+v; a command that ended in time is no job", list.Jobs)
	}
}

func TestShellThatOutlivesItsTimeoutIsPromotedAndReadsOnAfterItsOutput(t *testing.T) {
	f := newShellFixture(t)
	var got shellAnswer
	begin := time.Now()
	f.call(t.Context(), "shell", map[string]any{"command": f.gated(), "timeoutSeconds": 1, "label": "slow"}, &got)
	if took := time.Since(begin); took < time.Second {
		t.Errorf("shell answered after %v, before its timeout", took)
	}
	if !got.Promoted || got.JobID == (jobs.JobID{}) || got.Name != "sh-1" || got.Output != "first\n" {
		t.Fatalf("shell = %+v; want promoted, a job id and the output so far", got)
	}
	var out outputAnswer
	f.call(t.Context(), "job_output", map[string]any{"jobId": got.JobID}, &out)
	if out.Output != "" || out.Status != jobs.JobStatusRunning {
		t.Errorf("job_output right after the promotion = %+v; want nothing repeated, running", out)
	}
	f.open()
	var w waitAnswer
	f.call(t.Context(), "job_wait", map[string]any{"jobId": got.JobID, "timeoutSeconds": 10}, &w)
	if !w.Finished || w.Job.Status != jobs.JobStatusCompleted || !strings.Contains(w.Notice, got.JobID.String()) {
		t.Errorf("job_wait = %+v; want the completion notice", w)
	}
	f.call(t.Context(), "job_output", map[string]any{"jobId": got.JobID}, &out)
	if out.Output != "second\n" {
		t.Errorf("job_output after the end = %q; want exactly what followed the shell call's output", out.Output)
	}
}

func TestAbortAfterThePromotionDoesNotKillAndJobKillDoes(t *testing.T) {
	f := newShellFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	var got shellAnswer
	f.call(ctx, "shell", map[string]any{"command": f.gated(), "timeoutSeconds": 1}, &got)
	cancel() // the client gives up on the call that promoted the job
	if !got.Promoted {
		t.Fatalf("shell = %+v; want promoted", got)
	}
	var w waitAnswer
	f.call(t.Context(), "job_wait", map[string]any{"jobId": got.JobID, "timeoutSeconds": 1}, &w)
	if w.Finished || w.Job.Status != jobs.JobStatusRunning {
		t.Fatalf("after the abort, job_wait = %+v; want the job still running", w)
	}
	var kill struct{ Outcome string }
	f.call(t.Context(), "job_kill", map[string]any{"jobId": got.JobID}, &kill)
	f.call(t.Context(), "job_wait", map[string]any{"jobId": got.JobID, "timeoutSeconds": 10}, &w)
	if kill.Outcome != "requested" || !w.Finished || w.Job.Status != jobs.JobStatusKilled {
		t.Errorf("job_kill = %+v, then job_wait = %+v; want it killed", kill, w)
	}
}

func TestShellNarrationIsNeverJobOutputs(t *testing.T) {
	f := newShellFixture(t)
	var got shellAnswer
	f.call(t.Context(), "shell", map[string]any{"command": "echo 'phase: build' >&3; echo built"}, &got)
	var w waitAnswer
	f.call(t.Context(), "job_wait", map[string]any{"jobId": got.JobID, "timeoutSeconds": 10}, &w)
	var out outputAnswer
	f.call(t.Context(), "job_output", map[string]any{"jobId": got.JobID}, &out)
	if out.Output != "built\n" {
		t.Errorf("job_output = %q; want the output without the narration", out.Output)
	}
	rd, err := f.rt.reg.ReadRecord("s", got.JobID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var narration string
	for _, c := range rd.Chunks {
		if c.Channel == jobs.ChannelLog {
			narration += c.Text
		}
	}
	if narration != "phase: build\n" {
		t.Errorf("the record's narration = %q", narration)
	}
}
