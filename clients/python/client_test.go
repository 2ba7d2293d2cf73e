// Package pyclient_test runs the Python client's tests (tests/, pytest)
// against the real Go handler: a registry with a journal, served by
// jobhttp on a loopback listener, with the jobs the tests read, follow,
// type into and kill, and subagents, so that the tests call every route
// the spec declares (routetest.Cover says which they did not).
package pyclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute/routetest"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

// sessionHeader names the caller's session; only this test trusts it, as
// a runtime would trust its own authentication.
const sessionHeader = "X-Test-Session"

// TestPythonClient starts the handler and runs pytest over tests/, which
// the environment tells where the server is and which jobs to use: done,
// a settled recording job with ten lines of output; live, a recording job
// writing a line every 10 ms; victim and victim2, plain jobs the tests
// kill; terminal, a terminal job whose input the test keeps; foreign, a job
// of another session. The session has one subagent, child, with a history.
// Every route of wire.Routes must be called by the tests.
func TestPythonClient(t *testing.T) {
	py := requirePython(t)
	store, err := journal.Open(filepath.Join(t.TempDir(), "jobs.journal"))
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New(registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
	h, err := jobhttp.New(reg,
		func(r *http.Request) (jobs.SessionID, error) {
			if s := r.Header.Get(sessionHeader); s != "" {
				return jobs.SessionID(s), nil
			}
			if s, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
				return jobs.SessionID(s), nil // the Python guide's example
			}
			return "", errors.New("no session")
		},
		jobhttp.WithHistory(jobhttp.StoreHistory(store)),
		jobhttp.WithSubagents(oneChild{}),
	)
	if err != nil {
		t.Fatal(err)
	}
	cover := routetest.Cover(wire.Routes(), h)
	srv := httptest.NewServer(cover)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Close(ctx)
		srv.Close()
		reg.Close(ctx)
		store.Close(ctx)
	})
	const session = "python-client"
	done := start(t, reg, session, "done", func(job jobs.RecordingJob) jobs.JobOutcome {
		for i := range 10 {
			job.Append(fmt.Sprintf("line %d\n", i), jobs.AppendOptions{Channel: jobs.ChannelStdout})
		}
		return jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "ten lines"}
	})
	waitSettled(t, reg, session, done)
	live := start(t, reg, session, "live", func(job jobs.RecordingJob) jobs.JobOutcome {
		for i := range 100 {
			job.Append(fmt.Sprintf("tick %d\n", i), jobs.AppendOptions{})
			time.Sleep(10 * time.Millisecond)
		}
		return jobs.JobOutcome{Status: jobs.JobStatusCompleted}
	})
	victim := startPlain(t, reg, session, "victim")
	victim2 := startPlain(t, reg, session, "victim2")
	foreign := startPlain(t, reg, "someone-else", "foreign")
	typed := make(chan string, 4)
	terminal := startTerminal(t, reg, session, "terminal", typed)

	cmd := exec.Command(py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
	cmd.Dir = "."
	root, _ := filepath.Abs("../..")
	cmd.Env = append(os.Environ(),
		"PYTHONPATH="+filepath.Join(root, "generated/python")+string(os.PathListSeparator)+filepath.Join(root, "clients/python"),
		"PYTHONDONTWRITEBYTECODE=1",
		"JOBGEN_TEST_URL="+srv.URL,
		"JOBGEN_TEST_SESSION_HEADER="+sessionHeader,
		"JOBGEN_TEST_SESSION="+session,
		"JOBGEN_TEST_DONE="+done.String(),
		"JOBGEN_TEST_LIVE="+live.String(),
		"JOBGEN_TEST_VICTIM="+victim.String(),
		"JOBGEN_TEST_VICTIM2="+victim2.String(),
		"JOBGEN_TEST_FOREIGN="+foreign.String(),
		"JOBGEN_TEST_TERMINAL="+terminal.String(),
		"JOBGEN_TEST_CHILD="+string(child),
	)
	out, err := cmd.CombinedOutput()
	t.Logf("pytest:\n%s", out)
	if err != nil {
		t.Fatalf("pytest: %v", err)
	}
	if !strings.Contains(string(out), " passed") || strings.Contains(string(out), "skipped") {
		t.Fatalf("pytest ran no test, or skipped some")
	}
	if missing := cover.Missing(); len(missing) > 0 {
		t.Errorf("the Python tests called no %s", strings.Join(missing, ", "))
	}
	select {
	case text := <-typed:
		if text != "echo hi\n" {
			t.Errorf("the terminal was typed %q", text)
		}
	default:
		t.Error("the terminal was typed nothing")
	}
	guideExample(t, py, cmd.Env, srv.URL, session)
}

// pythonGuide holds the example guideExample runs: its first ```python
// block without a file= attribute, which the guide's own test leaves alone.
const pythonGuide = "../../docs/guides/python.md"

// guideExample runs the Python guide's example of jobgen's own wire against
// the server, as the session; it must decode its fact, follow a job to its
// end and print the intervals.
func guideExample(t *testing.T, py string, env []string, url, session string) {
	data, err := os.ReadFile(pythonGuide)
	if err != nil {
		t.Fatal(err)
	}
	_, example, ok := strings.Cut(string(data), "```python\n")
	example, _, ok2 := strings.Cut(example, "```")
	if !ok || !ok2 {
		t.Fatalf("%s has no ```python example", pythonGuide)
	}
	for _, old := range []string{"http://127.0.0.1:8080", "my-session"} {
		if !strings.Contains(example, old) {
			t.Fatalf("the guide's example no longer holds %q, which this test replaces", old)
		}
	}
	example = strings.NewReplacer("http://127.0.0.1:8080", url, "Bearer my-session", "Bearer "+session).Replace(example)
	cmd := exec.Command(py, "-c", example)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the guide's example: %v\n%s", err, out)
	}
	for _, want := range []string{"job/registered bash 3\n", " ended completed\n", " completed "} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the guide's example printed no %q:\n%s", want, out)
		}
	}
}

// start starts a recording job of session whose producer runs work on a
// goroutine of its own and settles with what it returns; a kill settles it
// killed.
func start(t *testing.T, reg *registry.Registry, session jobs.SessionID, label string, work func(jobs.RecordingJob) jobs.JobOutcome) jobs.JobID {
	t.Helper()
	snap, err := reg.Start(context.Background(), jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "py", Label: label, Owner: session},
		Run: func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			go func() { job.Settle(work(job), nil) }()
			return jobs.Hooks{Cancel: func(string) error { return nil }}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap.ID
}

// startTerminal starts a terminal job of session whose input goes to
// typed; it settles when the test ends.
func startTerminal(t *testing.T, reg *registry.Registry, session jobs.SessionID, label string, typed chan<- string) jobs.JobID {
	t.Helper()
	done := make(chan struct{})
	snap, _, err := reg.StartTerminal(context.Background(), jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "sh", Label: label, Owner: session},
		RunTerminal: func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, jobs.TerminalInput, error) {
			go func() {
				<-done
				job.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted}, nil)
			}()
			send := func(text string) error {
				select {
				case typed <- text:
					return nil
				default:
					return errors.New("the test's keyboard is full")
				}
			}
			return jobs.Hooks{Cancel: func(string) error { return nil }},
				jobs.TerminalInput{Send: send, Resize: func(jobs.TerminalSize) error { return nil }}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { close(done) })
	return snap.ID
}

// child is the one subagent of the test's session, under oneChild.
const child jobs.SessionID = "python-client/child-1"

// oneChild is the subagents of a runtime with one continuable child of
// the test's session, which a test reads as the manager's journal would
// give it.
type oneChild struct{}

func (oneChild) Tree(ctx context.Context, session jobs.SessionID) ([]wire.SubagentNode, error) {
	if session != "python-client" {
		return nil, nil
	}
	return []wire.SubagentNode{{
		ID: child, Parent: session, Root: session, Depth: 1, State: wire.SubagentStateSettled,
		Provider: "test", Label: "a child", CreatedAt: 1700000000000,
	}}, nil
}

func (oneChild) History(ctx context.Context, session, id jobs.SessionID) ([]wire.SubagentEvent, error) {
	if session != "python-client" || id != child {
		return nil, jobhttp.ErrNoSuchChild
	}
	return []wire.SubagentEvent{
		{At: 1700000000000, Kind: wire.SubagentEventKindCreated, Text: "a child"},
		{At: 1700000000001, Kind: wire.SubagentEventKindResidencyStarted},
	}, nil
}

// startPlain starts a plain job of session that runs until it is killed.
func startPlain(t *testing.T, reg *registry.Registry, session jobs.SessionID, label string) jobs.JobID {
	t.Helper()
	stop := make(chan string, 1)
	snap, err := reg.Start(context.Background(), jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "plain", Label: label, Owner: session},
		Run: func(ctx context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			return jobs.Hooks{
				Cancel: func(reason string) error {
					select {
					case stop <- reason:
					default:
					}
					return nil
				},
				Done: func() (jobs.JobOutcome, error) {
					return jobs.JobOutcome{Status: jobs.JobStatusKilled, Detail: <-stop}, nil
				},
			}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case stop <- "test over":
		default:
		}
	})
	return snap.ID
}

// waitSettled waits until the job has settled, so that what a test reads
// of it is its final state.
func waitSettled(t *testing.T, reg *registry.Registry, session jobs.SessionID, id jobs.JobID) {
	t.Helper()
	for range 500 {
		snap, err := reg.Get(session, id)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Status == jobs.JobStatusCompleted {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("the job did not settle")
}

// requirePython returns the project venv's python, skipping locally and
// failing under CI=true when it is missing.
func requirePython(t testing.TB) string {
	t.Helper()
	py, _ := filepath.Abs("../../tools/python/.venv/bin/python")
	if _, err := os.Stat(py); err == nil {
		return py
	}
	msg := "the Python client's test needs the project's venv: run tools/python/venv.sh"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
