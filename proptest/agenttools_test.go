package proptest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/registry"
)

// TestAgentToolsFence is the model-based property of the model-facing
// tools. Jobs of the sessions a and b and
// unowned ones (started through a start tool by their caller, consuming
// their output through ReadOutput or handing out a final output) write
// text whose runes, and runs of bytes that are no UTF-8, are split across
// writes at random, settle or are
// killed, while every session, "" and c, which owns nothing, call
// job_output with small budgets, job_kill, job_wait and job_list on their
// own jobs, on others' and on ids nobody issued, through Toolsets made
// afresh for many calls. The model says, after every call:
//
//   - the fence: a job is visible to its owner's session and an unowned
//     one to every caller; any other call about it answers unknownJob,
//     in the words an id nobody issued gets, and changes nothing — it
//     consumes no output, stops no job, marks nothing reported;
//   - job_list lists exactly the visible jobs, in start order;
//   - the consuming cursor: what job_output returns, over every call of
//     every visible caller, is a prefix of what the job wrote (or of its
//     final output), each call within its budget, valid UTF-8, cut on a
//     rune boundary, saying truncated exactly when bytes wait; each byte
//     that begins no valid sequence one U+FFFD, however reads split it; and once
//     the job settled and the calls read on, everything, each byte once;
//   - job_kill stops a running visible job and leaves a finished one alone;
//   - an argument past its bound (job_output's maxBytes, job_wait's
//     timeoutSeconds: spec/tools.yaml's defaults) is refused for every
//     caller, naming it, before any job is read or waited for.
func TestAgentToolsFence(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		m := newToolMachine(rt)
		defer m.reg.Close(context.Background())
		rt.Repeat(map[string]func(*rapid.T){
			"start":  m.start,
			"write":  m.write,
			"settle": m.settle,
			"output": m.output,
			"kill":   m.kill,
			"wait":   m.wait,
			"list":   m.list,
			"":       m.check,
		})
		m.drain(rt)
	})
}

// The callers of the tool machine: two owners, no session (whose jobs are
// unowned), and c, which owns nothing.
var toolCallers = []jobs.SessionID{"a", "b", "", "c"}

// A toolJob is one job of the machine: the producer's side, which the
// test drives, and the model's.
type toolJob struct {
	id        jobs.JobID
	owner     jobs.SessionID
	consuming bool
	face      jobs.RecordingJob

	mu     sync.Mutex
	unread []byte // written and not yet handed to ReadOutput

	written   []byte // everything written (consuming) or the final output
	pending   string // the rest of the last write, for the next
	delivered string // everything job_output returned, over all callers
	settled   bool
}

func (j *toolJob) readOutput() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := string(j.unread)
	j.unread = nil
	return s
}

// cancel ends the job killed at once, as a process dying of SIGTERM does.
func (j *toolJob) cancel(string) error {
	j.face.Settle(jobs.JobOutcome{Status: jobs.JobStatusKilled}, nil)
	return nil
}

// expected is the text job_output must hand out in total: what was
// written, where each byte that begins no valid sequence (a stray byte, a
// rune a kill cut short) reads as one U+FFFD, however the writes and reads
// split it.
func (j *toolJob) expected() string {
	if !j.consuming && !j.settled {
		return ""
	}
	if !j.settled {
		// A prefix: a split rune's rest may follow, so the last rune is
		// left out until it is whole.
		w := j.written
		if i := registry.CompleteUTF8(string(w)); i < len(w) {
			w = w[:i]
		}
		return registry.ValidUTF8(string(w))
	}
	return registry.ValidUTF8(string(j.written))
}

type toolMachine struct {
	reg   *registry.Registry
	tools *agenttools.Tools
	jobs  []*toolJob
	// pending is the job a start tool is starting; its Run fills it in.
	pending *toolJob
}

func newToolMachine(rt *rapid.T) *toolMachine {
	m := &toolMachine{reg: registry.New()}
	start := agenttools.StartTool{
		Tool: agenttools.Tool{Name: "test_start", Description: "test_start starts a test job.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Call: func(ctx context.Context, c agenttools.Caller, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ Consuming bool }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			j := &toolJob{owner: c.Session, consuming: in.Consuming}
			snap, err := m.reg.Start(ctx, jobs.RecordingJobStart{
				JobStartCommon: jobs.JobStartCommon{Kind: "t", Label: "test", Owner: c.Session},
				Run: func(_ context.Context, face jobs.RecordingJob) (jobs.Hooks, error) {
					j.face = face
					h := jobs.Hooks{Cancel: j.cancel}
					if j.consuming {
						h.ReadOutput = j.readOutput
					}
					return h, nil
				},
			})
			if err != nil {
				return nil, err
			}
			j.id = snap.ID
			m.pending = j
			return json.Marshal(map[string]any{"jobId": snap.ID})
		},
	}
	tools, err := agenttools.New(m.reg, agenttools.WithStartTool(start))
	if err != nil {
		rt.Fatal(err)
	}
	m.tools = tools
	return m
}

// visible says whether caller may see j, as the registry's fence says.
func visible(caller jobs.SessionID, j *toolJob) bool { return j.owner == "" || j.owner == caller }

func (m *toolMachine) start(rt *rapid.T) {
	if len(m.jobs) >= 6 {
		rt.Skip("enough jobs")
	}
	caller := rapid.SampledFrom([]jobs.SessionID{"a", "b", ""}).Draw(rt, "owner")
	consuming := rapid.Bool().Draw(rt, "consuming")
	args, _ := json.Marshal(map[string]bool{"Consuming": consuming})
	if _, err := m.tools.For(caller).Call(context.Background(), "test_start", args); err != nil {
		rt.Fatalf("test_start for %q: %v", caller, err)
	}
	m.jobs = append(m.jobs, m.pending)
}

func (m *toolMachine) running(rt *rapid.T) *toolJob {
	var live []*toolJob
	for _, j := range m.jobs {
		if !j.settled {
			live = append(live, j)
		}
	}
	if len(live) == 0 {
		rt.Skip("no running job")
	}
	return rapid.SampledFrom(live).Draw(rt, "job")
}

// toolPieces are what a job writes: runes of one to four bytes, and bytes
// that begin no valid sequence (a stray byte, a rune's start without its
// rest, a surrogate), so a run of invalid bytes is often split across reads.
var toolPieces = []string{"a", "b", "\n", "é", "€", "𝄞", "\xff", "\xe2\x82", "\x80", "\xed\xa0\x80"}

// write appends text cut at a random byte: the rest waits for the job's
// next write, so a multi-byte rune is often split across two appends with
// reads in between.
func (m *toolMachine) write(rt *rapid.T) {
	j := m.running(rt)
	text := j.pending
	for _, p := range rapid.SliceOfN(rapid.SampledFrom(toolPieces), 1, 12).Draw(rt, "text") {
		text += p
	}
	cut := rapid.IntRange(0, len(text)).Draw(rt, "cut")
	j.pending = text[cut:]
	j.append(text[:cut])
}

func (j *toolJob) append(piece string) {
	if piece == "" {
		return
	}
	if j.consuming {
		j.mu.Lock()
		j.unread = append(j.unread, piece...)
		j.mu.Unlock()
		j.written = append(j.written, piece...)
	}
	j.face.Append(piece, jobs.AppendOptions{})
}

func (m *toolMachine) settle(rt *rapid.T) {
	j := m.running(rt)
	j.append(j.pending)
	final := ""
	if !j.consuming {
		final = rapid.StringOfN(rapid.RuneFrom([]rune{'x', 'é', '𝄞'}), 0, 20, -1).Draw(rt, "final")
		j.written = []byte(final)
	}
	j.face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Output: final}, nil)
	j.settled = true
}

// target draws a caller and a job — one of the machine's, or an id nobody
// issued (nil).
func (m *toolMachine) target(rt *rapid.T) (jobs.SessionID, *toolJob, jobs.JobID) {
	caller := rapid.SampledFrom(toolCallers).Draw(rt, "caller")
	if len(m.jobs) == 0 || rapid.IntRange(0, 5).Draw(rt, "unknown") == 0 {
		return caller, nil, jobs.NewJobID()
	}
	j := rapid.SampledFrom(m.jobs).Draw(rt, "target")
	return caller, j, j.id
}

// refused checks a call about a job caller may not see: unknownJob, in
// exactly the words of an id nobody issued.
func (m *toolMachine) refused(rt *rapid.T, tool string, caller jobs.SessionID, id jobs.JobID, err error) {
	rt.Helper()
	var e *agenttools.Error
	if !errors.As(err, &e) || e.Code != tools.ErrorCodeUnknownJob {
		rt.Fatalf("%s by %q of %s not visible to it: %v, want unknownJob", tool, caller, id, err)
	}
	other := jobs.NewJobID()
	args, _ := json.Marshal(map[string]any{"jobId": other})
	_, err2 := m.tools.For(caller).Call(context.Background(), tool, args)
	if err2 == nil || strings.ReplaceAll(err2.Error(), other.String(), id.String()) != err.Error() {
		rt.Fatalf("%s of a foreign job reads %q, of an unknown one %v", tool, err, err2)
	}
}

// untouched returns a check that j is as it was when untouched was called:
// same status, same reported.
func (m *toolMachine) untouched(rt *rapid.T, j *toolJob) func() {
	if j == nil {
		return func() {}
	}
	before, _ := m.reg.Get(j.owner, j.id)
	return func() {
		rt.Helper()
		after, _ := m.reg.Get(j.owner, j.id)
		if after.Status != before.Status || after.Reported != before.Reported {
			rt.Fatalf("a refused call changed job %s from %s (reported %v) to %s (reported %v)", j.id, before.Status, before.Reported, after.Status, after.Reported)
		}
	}
}

// beyond calls tool about id with the argument field past its bound, at
// times: spec/tools.yaml bounds it by a default, and the call is refused
// before any job is read, for every caller alike (the fence is not asked),
// naming the argument, and changes and consumes nothing. It reports
// whether it called.
func (m *toolMachine) beyond(rt *rapid.T, tool, field string, bound int, caller jobs.SessionID, j *toolJob, id jobs.JobID) bool {
	if rapid.IntRange(0, 7).Draw(rt, "beyond") != 0 {
		return false
	}
	args, _ := json.Marshal(map[string]any{"jobId": id, field: bound + 1 + rapid.IntRange(0, 1<<20).Draw(rt, "past")})
	same := m.untouched(rt, j)
	_, err := m.tools.For(caller).Call(context.Background(), tool, args)
	var e *agenttools.Error
	if !errors.As(err, &e) || e.Code != tools.ErrorCodeInvalidArguments || !strings.Contains(e.Message, `"`+field+`"`) {
		rt.Fatalf("%s by %q with %s past its bound %d: %v, want invalidArguments naming %s", tool, caller, field, bound, err, field)
	}
	same()
	return true
}

func (m *toolMachine) output(rt *rapid.T) {
	caller, j, id := m.target(rt)
	if m.beyond(rt, "job_output", "maxBytes", tools.DefaultMaxOutputBytes, caller, j, id) {
		return
	}
	maxBytes := rapid.IntRange(0, 9).Draw(rt, "maxBytes")
	args, _ := json.Marshal(map[string]any{"jobId": id, "maxBytes": maxBytes})
	same := m.untouched(rt, j)
	out, err := m.tools.For(caller).Call(context.Background(), "job_output", args)
	if j == nil || !visible(caller, j) {
		m.refused(rt, "job_output", caller, id, err)
		same()
		return
	}
	if err != nil {
		rt.Fatalf("job_output by %q of its job: %v", caller, err)
	}
	m.took(rt, j, out, maxBytes)
}

// took checks one job_output result of j and adds it to what j delivered.
func (m *toolMachine) took(rt *rapid.T, j *toolJob, out json.RawMessage, maxBytes int) tools.JobOutputResult {
	var res tools.JobOutputResult
	if err := json.Unmarshal(out, &res); err != nil {
		rt.Fatalf("job_output result %s: %v", out, err)
	}
	budget := maxBytes
	if budget == 0 {
		budget = tools.DefaultOutputBytes
	}
	budget = max(budget, utf8.UTFMax)
	if len(res.Output) > budget || !utf8.ValidString(res.Output) {
		rt.Fatalf("job_output of %d bytes (budget %d), valid UTF-8 %v: %q", len(res.Output), budget, utf8.ValidString(res.Output), res.Output)
	}
	if res.Truncated != (res.RemainingBytes > 0) || res.JobID != j.id {
		rt.Fatalf("job_output %+v: truncated must say that bytes wait", res)
	}
	j.delivered += res.Output
	if want := j.expected(); !strings.HasPrefix(want, j.delivered) {
		rt.Fatalf("job %s delivered %q, which is no prefix of what it wrote, %q", j.id, j.delivered, want)
	}
	return res
}

func (m *toolMachine) kill(rt *rapid.T) {
	caller, j, id := m.target(rt)
	args, _ := json.Marshal(map[string]any{"jobId": id})
	same := m.untouched(rt, j)
	out, err := m.tools.For(caller).Call(context.Background(), "job_kill", args)
	if j == nil || !visible(caller, j) {
		m.refused(rt, "job_kill", caller, id, err)
		same()
		return
	}
	var res tools.JobKillResult
	if err != nil || json.Unmarshal(out, &res) != nil {
		rt.Fatalf("job_kill by %q of its job: %v %s", caller, err, out)
	}
	want := tools.KillOutcomeRequested
	if j.settled {
		want = tools.KillOutcomeAlreadyFinished
	} else {
		j.settled = true
		if !j.consuming {
			j.written = nil // killed: no final output
		}
	}
	if res.Outcome != want || !res.Status.Terminal() {
		rt.Fatalf("job_kill = %+v, want %s and a finished job", res, want)
	}
}

func (m *toolMachine) wait(rt *rapid.T) {
	caller, j, id := m.target(rt)
	if m.beyond(rt, "job_wait", "timeoutSeconds", int(tools.DefaultMaxWaitTimeout.Seconds()), caller, j, id) {
		return
	}
	if j != nil && visible(caller, j) && !j.settled {
		rt.Skip("a wait on a running job would block")
	}
	args, _ := json.Marshal(map[string]any{"jobId": id})
	same := m.untouched(rt, j)
	out, err := m.tools.For(caller).Call(context.Background(), "job_wait", args)
	if j == nil || !visible(caller, j) {
		m.refused(rt, "job_wait", caller, id, err)
		same()
		return
	}
	var res tools.JobWaitResult
	if err != nil || json.Unmarshal(out, &res) != nil {
		rt.Fatalf("job_wait by %q of its job: %v %s", caller, err, out)
	}
	if !res.Finished || !strings.Contains(res.Notice, id.String()) {
		rt.Fatalf("job_wait of a finished job = %+v, want finished with a notice naming it", res)
	}
}

func (m *toolMachine) list(rt *rapid.T) {
	caller := rapid.SampledFrom(toolCallers).Draw(rt, "caller")
	m.checkList(rt, caller)
}

func (m *toolMachine) checkList(rt *rapid.T, caller jobs.SessionID) {
	out, err := m.tools.For(caller).Call(context.Background(), "job_list", json.RawMessage(`{}`))
	var res tools.JobListResult
	if err != nil || json.Unmarshal(out, &res) != nil {
		rt.Fatalf("job_list by %q: %v %s", caller, err, out)
	}
	var got, want []jobs.JobID
	for _, e := range res.Jobs {
		got = append(got, e.ID)
	}
	for _, j := range m.jobs {
		if visible(caller, j) {
			want = append(want, j.id)
		}
	}
	if !slices.Equal(got, want) {
		rt.Fatalf("job_list by %q = %v, want %v", caller, got, want)
	}
}

// check is what holds after every action: the lists and, for every job,
// the registry's status and the fence on reported.
func (m *toolMachine) check(rt *rapid.T) {
	for _, c := range toolCallers {
		m.checkList(rt, c)
	}
	for _, j := range m.jobs {
		snap, err := m.reg.Get(j.owner, j.id)
		if err != nil || snap.Status.Terminal() != j.settled {
			rt.Fatalf("job %s is %s (%v), the model says settled=%v", j.id, snap.Status, err, j.settled)
		}
	}
}

// drain settles every job and reads each to its end as its owner: every
// byte it wrote was delivered, once.
func (m *toolMachine) drain(rt *rapid.T) {
	for _, j := range m.jobs {
		if !j.settled {
			j.append(j.pending)
			j.face.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Output: string(j.written)}, nil)
			j.settled = true
		}
		for range len(j.expected()) + 3 { // each call returns a rune at least
			args, _ := json.Marshal(map[string]any{"jobId": j.id, "maxBytes": utf8.UTFMax})
			out, err := m.tools.For(j.owner).Call(context.Background(), "job_output", args)
			if err != nil {
				rt.Fatalf("job_output by the owner at the end: %v", err)
			}
			if res := m.took(rt, j, out, utf8.UTFMax); res.Output == "" && !res.Truncated {
				break
			}
		}
		if j.delivered != j.expected() {
			rt.Fatalf("job %s (consuming %v) delivered %q in all, want %q", j.id, j.consuming, j.delivered, j.expected())
		}
	}
}
