package agenttools_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
)

func TestJobListShowsTheCallersJobsAndTheUnownedOldestFirst(t *testing.T) {
	f := newFixture(t)
	mine := f.start(jobSpec{owner: "a", label: "build", labels: map[string]string{"team": "infra", "ci": "nightly"}})
	f.start(jobSpec{owner: "b", label: "not yours"})
	shared := f.start(jobSpec{label: "unowned"})
	done := f.start(jobSpec{owner: "a", kind: "go", label: "test"})
	mine.face.UpdateDetail("compiling 3/7")
	done.settle(jobs.JobStatusFailed, "exit status 1", "")

	tests := []struct {
		name   string
		caller jobs.SessionID
		args   string
		want   []jobs.JobID
	}{
		{"all of a's and the unowned", "a", `{}`, []jobs.JobID{mine.snap.ID, shared.snap.ID, done.snap.ID}},
		{"no arguments at all", "a", ``, []jobs.JobID{mine.snap.ID, shared.snap.ID, done.snap.ID}},
		{"null arguments", "a", `null`, []jobs.JobID{mine.snap.ID, shared.snap.ID, done.snap.ID}},
		{"active only", "a", `{"activeOnly": true}`, []jobs.JobID{mine.snap.ID, shared.snap.ID}},
		{"a session with no jobs sees the unowned", "c", `{}`, []jobs.JobID{shared.snap.ID}},
		{"no session sees only the unowned", "", `{}`, []jobs.JobID{shared.snap.ID}},
		{"by a label", "a", `{"labels": {"team": "infra"}}`, []jobs.JobID{mine.snap.ID}},
		{"by every label given", "a", `{"labels": {"team": "infra", "ci": "weekly"}}`, nil},
		{"another session's labels match nothing of its own", "b", `{"labels": {"team": "infra"}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := decode[tools.JobListResult](t, call(t, f.tools.For(tt.caller), "job_list", tt.args))
			var got []jobs.JobID
			for _, e := range res.Jobs {
				got = append(got, e.ID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ids = %v, want %v", got, tt.want)
			}
		})
	}

	res := decode[tools.JobListResult](t, call(t, f.tools.For("a"), "job_list", `{}`))
	wantLive := tools.JobEntry{ID: mine.snap.ID, Name: "sh-1", Kind: "sh", Label: "build", Status: jobs.JobStatusRunning, Detail: "compiling 3/7", StartedAt: t0,
		Labels: map[string]string{"team": "infra", "ci": "nightly"}}
	if !reflect.DeepEqual(res.Jobs[0], wantLive) {
		t.Errorf("live entry = %+v, want %+v", res.Jobs[0], wantLive)
	}
	settled := res.Jobs[2]
	if settled.Status != jobs.JobStatusFailed || settled.Detail != "exit status 1" || settled.FinishedAt.IsZero() || settled.Name != "go-1" {
		t.Errorf("settled entry = %+v, want failed go-1 with its detail and a finish time", settled)
	}
}

func TestJobListOfNoJobsIsAnEmptyList(t *testing.T) {
	f := newFixture(t)
	if got := string(call(t, f.tools.For("a"), "job_list", `{}`)); got != `{"jobs":[]}` {
		t.Errorf("job_list = %s, want {\"jobs\":[]}", got)
	}
}

// output calls job_output and decodes its result.
func output(t *testing.T, s *agenttools.Toolset, id jobs.JobID, maxBytes int) tools.JobOutputResult {
	t.Helper()
	args := map[string]any{"jobId": id}
	if maxBytes != 0 {
		args["maxBytes"] = maxBytes
	}
	return decode[tools.JobOutputResult](t, call(t, s, "job_output", args))
}

func TestJobOutputConsumesAndCutsToTheBudget(t *testing.T) {
	type read struct {
		maxBytes  int
		out       string
		remaining int64
		notice    string
	}
	tests := []struct {
		name      string
		writes    []string
		consuming bool
		settle    bool
		reads     []read
	}{
		{"each byte once", []string{"hello\n"}, true, false, []read{
			{0, "hello\n", 0, ""},
			{0, "", 0, "No new output yet."},
		}},
		{"the rest waits for the next call", []string{"abcdefghij"}, true, false, []read{
			{4, "abcd", 6, "6 more bytes are waiting: call job_output again to read on."},
			{4, "efgh", 2, "2 more bytes are waiting"},
			{4, "ij", 0, ""},
		}},
		{"nothing is read while something waits", []string{"abcdef", "XYZ"}, true, false, []read{
			{4, "abcd", 5, "5 more bytes"}, // both writes were unread: one read took them
		}},
		{"a cut falls on a rune boundary", []string{"ééé"}, true, false, []read{
			{5, "éé", 2, "2 more bytes"},
			{5, "é", 0, ""},
		}},
		{"a budget below a rune is a rune", []string{"€€"}, true, false, []read{
			{1, "€", 3, "3 more bytes"},
		}},
		{"half a rune waits for its rest", []string{"a\xe2\x82"}, true, false, []read{
			{0, "a", 0, ""},
		}},
		{"invalid bytes read as U+FFFD", []string{"a\xffb"}, true, false, []read{
			{0, "a\uFFFDb", 0, ""},
		}},
		{"a settled job without a cursor hands out its final output once", nil, false, true, []read{
			{4, "fina", 1, "1 more byte is waiting"},
			{0, "l", 0, "The job has finished and you have read all of its output."},
			{0, "", 0, "The job has finished and you have read all of its output."},
		}},
		{"a live job without a cursor has nothing yet", []string{"in the record only"}, false, false, []read{
			{0, "", 0, "No new output yet."},
		}},
		{"what a settled consuming job left is read once", []string{"last words"}, true, true, []read{
			{0, "last words", 0, "The job has finished"},
			{0, "", 0, "The job has finished"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			j := f.start(jobSpec{owner: "a", consuming: tt.consuming})
			for _, w := range tt.writes {
				j.write(w)
			}
			if tt.settle {
				j.settle(jobs.JobStatusCompleted, "", "final")
			}
			for i, r := range tt.reads {
				got := output(t, f.tools.For("a"), j.snap.ID, r.maxBytes)
				if got.Output != r.out || got.RemainingBytes != r.remaining || got.Truncated != (r.remaining > 0) {
					t.Errorf("read %d = %q (%d waiting, truncated %v), want %q (%d waiting)", i, got.Output, got.RemainingBytes, got.Truncated, r.out, r.remaining)
				}
				if !strings.HasPrefix(got.Notice, r.notice) || r.notice == "" && got.Notice != "" {
					t.Errorf("read %d notice = %q, want it to start with %q", i, got.Notice, r.notice)
				}
				if got.JobID != j.snap.ID || got.Name != "sh-1" {
					t.Errorf("read %d names job %s %s, want %s sh-1", i, got.JobID, got.Name, j.snap.ID)
				}
			}
		})
	}
}

func TestJobOutputJoinsARuneSplitAcrossReads(t *testing.T) {
	f := newFixture(t)
	j := f.start(jobSpec{owner: "a", consuming: true})
	j.write("a\xe2\x82")
	if got := output(t, f.tools.For("a"), j.snap.ID, 0); got.Output != "a" {
		t.Errorf("first read %q, want \"a\" with the half rune held", got.Output)
	}
	j.write("\xac!")
	if got := output(t, f.tools.For("a"), j.snap.ID, 0); got.Output != "€!" {
		t.Errorf("second read %q, want \"€!\"", got.Output)
	}
	j.write("\xe2")
	j.settle(jobs.JobStatusCompleted, "", "")
	if got := output(t, f.tools.For("a"), j.snap.ID, 0); got.Output != "\uFFFD" {
		t.Errorf("after settling, a rune never finished reads %q, want U+FFFD", got.Output)
	}
}

func TestJobOutputBudgetIsAtMostTheMaximum(t *testing.T) {
	f := newFixture(t)
	j := f.start(jobSpec{owner: "a", consuming: true})
	j.write(strings.Repeat("x", tools.DefaultMaxOutputBytes+100))
	got := output(t, f.tools.For("a"), j.snap.ID, tools.DefaultMaxOutputBytes)
	if len(got.Output) != tools.DefaultMaxOutputBytes || got.RemainingBytes != 100 {
		t.Errorf("read %d bytes with %d waiting, want %d with 100", len(got.Output), got.RemainingBytes, tools.DefaultMaxOutputBytes)
	}
	if got := output(t, f.tools.For("a"), j.snap.ID, 0); len(got.Output) != 100 {
		t.Errorf("then %d bytes, want the 100 that waited", len(got.Output))
	}
}

func TestJobOutputOfAnotherSessionsJobIsUnknownAndConsumesNothing(t *testing.T) {
	f := newFixture(t)
	j := f.start(jobSpec{owner: "a", consuming: true})
	j.write("secret output")
	output(t, f.tools.For("a"), j.snap.ID, 6) // "secret" shown, " output" waits for a
	foreign := callErr(t, f.tools.For("b"), "job_output", map[string]any{"jobId": j.snap.ID})
	unknown := callErr(t, f.tools.For("b"), "job_output", map[string]any{"jobId": jobID(99)})
	if foreign.Code != tools.ErrorCodeUnknownJob || unknown.Code != tools.ErrorCodeUnknownJob {
		t.Fatalf("codes = %s, %s, want unknownJob for both", foreign.Code, unknown.Code)
	}
	if got, want := foreign.Message, strings.ReplaceAll(unknown.Message, jobID(99).String(), j.snap.ID.String()); got != want {
		t.Errorf("a foreign job reads %q, an unknown one %q: they must say the same", got, want)
	}
	if strings.Contains(foreign.Message, "output") || strings.Contains(foreign.Message, "secret") {
		t.Errorf("the refusal %q shows the job's output", foreign.Message)
	}
	if got := output(t, f.tools.For("a"), j.snap.ID, 0); got.Output != " output" {
		t.Errorf("the owner then reads %q, want \" output\"", got.Output)
	}
}

func TestJobOutputCarriesOverToAnotherToolsetOfTheSession(t *testing.T) {
	f := newFixture(t)
	j := f.start(jobSpec{owner: "a", consuming: true})
	j.write("0123456789")
	output(t, f.tools.For("a"), j.snap.ID, 4)
	if got := output(t, f.tools.For("a"), j.snap.ID, 0); got.Output != "456789" {
		t.Errorf("a second Toolset of the session reads %q, want the 6 bytes the first left", got.Output)
	}
}

func TestJobToolsRefuseBadArguments(t *testing.T) {
	f := newFixture(t)
	s := f.tools.For("a")
	id := `"00000000-0000-4000-8000-000000000001"`
	tests := []struct {
		tool, args, want string
	}{
		{"job_output", `{}`, `job_output needs the argument "jobId".`},
		{"job_output", `{"jobId": null}`, `job_output needs the argument "jobId".`},
		{"job_output", `{"jobId": "sh-1"}`, `The argument "jobId" of job_output must be an id as job_list shows it`},
		{"job_output", `{"jobId": "00000000-0000-0000-0000-000000000000"}`, `The argument "jobId" of job_output is the nil id, which names nothing: it must be an id as job_list shows it`},
		{"job_output", `{"jobId": "00000000-0000-4000-8000-00000000000A"}`, `The argument "jobId" of job_output must be an id`},
		{"job_output", `{"jobId": 7}`, `The argument "jobId" of job_output must be a string.`},
		{"job_output", `{"jobId": ` + id + `, "maxBytes": -1}`, `The argument "maxBytes" of job_output must be from 0 to 65536.`},
		{"job_output", `{"jobId": ` + id + `, "maxBytes": 65537}`, `The argument "maxBytes" of job_output must be from 0 to 65536.`},
		{"job_output", `{"jobId": ` + id + `, "bogus": 1}`, `job_output has no argument "bogus"; its arguments are jobId, maxBytes.`},
		{"job_list", `{"bogus": 1}`, `job_list has no argument "bogus"; its arguments are activeOnly, labels.`},
		{"job_output", `{"jobId": ` + id + `, "maxBytes": 2.5}`, `The argument "maxBytes" of job_output must be a whole number.`},
		{"job_output", `{"jobId": ` + id + `, "maxBytes": "10"}`, `The argument "maxBytes" of job_output must be a whole number.`},
		{"job_output", `{"JobId": ` + id + `}`, `Write the argument "JobId" as "jobId", in exactly that case.`},
		{"job_output", `{"jobId": ` + id + `, "jobId": ` + id + `}`, `An argument of job_output appears twice`},
		{"job_output", `[` + id + `]`, `The arguments of job_output must be a JSON object, such as {"jobId": …}.`},
		{"job_output", `{"jobId"`, `The arguments of job_output must be a JSON object`},
		{"job_list", `{"activeOnly": "yes"}`, `The argument "activeOnly" of job_list must be true or false.`},
		{"job_list", `"all"`, `The arguments of job_list must be a JSON object, such as {}.`},
		{"job_kill", `{"reason": "done"}`, `Give the job to stop as jobId, or several as jobIds.`},
		{"job_kill", `{"jobId": ` + id + `, "reason": 3}`, `The argument "reason" of job_kill must be a string.`},
		{"job_wait", `{"jobId": ` + id + `, "timeoutSeconds": -5}`, `The argument "timeoutSeconds" of job_wait must be from 0 to 600.`},
		{"job_wait", `{"jobId": ` + id + `, "timeoutSeconds": 4294967295}`, `The argument "timeoutSeconds" of job_wait must be from 0 to 600.`},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			e := callErr(t, s, tt.tool, tt.args)
			if e.Code != tools.ErrorCodeInvalidArguments || !strings.HasPrefix(e.Message, tt.want) {
				t.Errorf("error = %s: %q, want invalidArguments: %q", e.Code, e.Message, tt.want)
			}
			if strings.Contains(e.Message, "json:") || strings.Contains(e.Message, "Go ") || strings.Contains(e.Message, "tools.") {
				t.Errorf("the message %q leaks a Go error", e.Message)
			}
		})
	}
}

func TestJobKillOfSeveralIDsSaysWhatHappenedToEach(t *testing.T) {
	f := newFixture(t)
	mine := f.start(jobSpec{owner: "a"})
	failing := f.start(jobSpec{owner: "a"})
	failing.cancelErr = errors.New("kill: operation not permitted")
	finished := f.start(jobSpec{owner: "a"})
	finished.settle(jobs.JobStatusCompleted, "", "")
	foreign := f.start(jobSpec{owner: "b"})

	ids := []jobs.JobID{mine.snap.ID, foreign.snap.ID, failing.snap.ID, finished.snap.ID, jobID(42)}
	got := decode[tools.JobKillResult](t, call(t, f.tools.For("a"), "job_kill", map[string]any{"jobIds": ids, "reason": "cleanup"}))

	want := tools.JobKillResult{Results: []tools.JobKillEach{
		{JobID: mine.snap.ID, Name: mine.snap.Name, Outcome: tools.KillOutcomeRequested, Status: jobs.JobStatusKilled},
		{JobID: foreign.snap.ID, Error: tools.ErrorCodeUnknownJob},
		{JobID: failing.snap.ID, Name: failing.snap.Name, Status: jobs.JobStatusRunning, Error: tools.ErrorCodeKillFailed},
		{JobID: finished.snap.ID, Name: finished.snap.Name, Outcome: tools.KillOutcomeAlreadyFinished, Status: jobs.JobStatusCompleted},
		{JobID: jobID(42), Error: tools.ErrorCodeUnknownJob},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("job_kill of several = %+v\nwant %+v", got, want)
	}
	if !reflect.DeepEqual(mine.cancels, []string{"cleanup"}) || !reflect.DeepEqual(failing.cancels, []string{"cleanup"}) {
		t.Fatalf("Cancel reasons %q, %q; want the one reason each", mine.cancels, failing.cancels)
	}
	if len(foreign.cancels) != 0 {
		t.Fatalf("another session's job was cancelled %q; the fence must hold", foreign.cancels)
	}
}

func TestJobKill(t *testing.T) {
	tests := []struct {
		name      string
		caller    jobs.SessionID
		args      func(id jobs.JobID) map[string]any
		before    func(j *fakeJob)
		want      tools.JobKillResult
		wantErr   tools.ErrorCode
		cancels   []string
		jobStatus jobs.JobStatus
	}{
		{
			name: "a running job is asked to stop, with the default reason", caller: "a",
			args:    func(id jobs.JobID) map[string]any { return map[string]any{"jobId": id} },
			want:    tools.JobKillResult{Name: "sh-1", Outcome: tools.KillOutcomeRequested, Status: jobs.JobStatusKilled},
			cancels: []string{"stopped with job_kill"}, jobStatus: jobs.JobStatusKilled,
		},
		{
			name: "the model's reason is kept", caller: "a",
			args:    func(id jobs.JobID) map[string]any { return map[string]any{"jobId": id, "reason": "tests hang"} },
			want:    tools.JobKillResult{Name: "sh-1", Outcome: tools.KillOutcomeRequested, Status: jobs.JobStatusKilled},
			cancels: []string{"tests hang"}, jobStatus: jobs.JobStatusKilled,
		},
		{
			name: "a finished job is left alone", caller: "a",
			args:    func(id jobs.JobID) map[string]any { return map[string]any{"jobId": id} },
			before:  func(j *fakeJob) { j.settle(jobs.JobStatusCompleted, "", "") },
			want:    tools.JobKillResult{Name: "sh-1", Outcome: tools.KillOutcomeAlreadyFinished, Status: jobs.JobStatusCompleted},
			cancels: nil, jobStatus: jobs.JobStatusCompleted,
		},
		{
			name: "another session's job is unknown and keeps running", caller: "b",
			args:    func(id jobs.JobID) map[string]any { return map[string]any{"jobId": id} },
			wantErr: tools.ErrorCodeUnknownJob, cancels: nil, jobStatus: jobs.JobStatusRunning,
		},
		{
			name: "no session cannot kill an owned job", caller: "",
			args:    func(id jobs.JobID) map[string]any { return map[string]any{"jobId": id} },
			wantErr: tools.ErrorCodeUnknownJob, cancels: nil, jobStatus: jobs.JobStatusRunning,
		},
		{
			name: "an unknown id is unknown", caller: "a",
			args:    func(jobs.JobID) map[string]any { return map[string]any{"jobId": jobID(42)} },
			wantErr: tools.ErrorCodeUnknownJob, cancels: nil, jobStatus: jobs.JobStatusRunning,
		},
		{
			name: "neither jobId nor jobIds is invalid", caller: "a",
			args:    func(jobs.JobID) map[string]any { return map[string]any{"reason": "x"} },
			wantErr: tools.ErrorCodeInvalidArguments, cancels: nil, jobStatus: jobs.JobStatusRunning,
		},
		{
			name: "both jobId and jobIds is invalid", caller: "a",
			args:    func(id jobs.JobID) map[string]any { return map[string]any{"jobId": id, "jobIds": []jobs.JobID{id}} },
			wantErr: tools.ErrorCodeInvalidArguments, cancels: nil, jobStatus: jobs.JobStatusRunning,
		},
		{
			name: "more jobIds than one call stops is invalid", caller: "a",
			args: func(id jobs.JobID) map[string]any {
				return map[string]any{"jobIds": slices.Repeat([]jobs.JobID{id}, 101)}
			},
			wantErr: tools.ErrorCodeInvalidArguments, cancels: nil, jobStatus: jobs.JobStatusRunning,
		},
		{
			name: "a Cancel that fails is killFailed and the job runs on", caller: "a",
			args:    func(id jobs.JobID) map[string]any { return map[string]any{"jobId": id} },
			before:  func(j *fakeJob) { j.cancelErr = errors.New("kill: operation not permitted (pid 4242)") },
			wantErr: tools.ErrorCodeKillFailed, cancels: []string{"stopped with job_kill"}, jobStatus: jobs.JobStatusRunning,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			j := f.start(jobSpec{owner: "a"})
			if tt.before != nil {
				tt.before(j)
			}
			s := f.tools.For(tt.caller)
			if tt.wantErr != "" {
				e := callErr(t, s, "job_kill", tt.args(j.snap.ID))
				if e.Code != tt.wantErr {
					t.Errorf("error = %v, want %s", e, tt.wantErr)
				}
				if strings.Contains(e.Message, "pid 4242") || strings.Contains(e.Message, "not permitted") {
					t.Errorf("the message %q leaks the Cancel's error", e.Message)
				}
			} else {
				got := decode[tools.JobKillResult](t, call(t, s, "job_kill", tt.args(j.snap.ID)))
				tt.want.JobID = j.snap.ID
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("job_kill = %+v, want %+v", got, tt.want)
				}
			}
			if !reflect.DeepEqual(j.cancels, tt.cancels) {
				t.Errorf("Cancel calls = %q, want %q", j.cancels, tt.cancels)
			}
			if snap, _ := f.reg.Get("a", j.snap.ID); snap.Status != tt.jobStatus {
				t.Errorf("the job is %s, want %s", snap.Status, tt.jobStatus)
			}
		})
	}
}

func TestJobWait(t *testing.T) {
	waitFor := func(t *testing.T, s *agenttools.Toolset, args map[string]any) (tools.JobWaitResult, time.Duration) {
		t.Helper()
		begin := time.Now()
		res := decode[tools.JobWaitResult](t, call(t, s, "job_wait", args))
		return res, time.Since(begin)
	}
	t.Run("a finished job returns at once with its notice", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t)
			j := f.start(jobSpec{owner: "a", label: "run the tests"})
			j.settle(jobs.JobStatusFailed, "exit status 1", "")
			res, took := waitFor(t, f.tools.For("a"), map[string]any{"jobId": j.snap.ID})
			snap, _ := f.reg.Get("a", j.snap.ID)
			if !res.Finished || res.Job.Status != jobs.JobStatusFailed || took != 0 {
				t.Errorf("job_wait = %+v after %v, want finished failed at once", res, took)
			}
			if want := agenttools.JobNotice(snap, tools.DefaultNoticeBytes); res.Notice != want {
				t.Errorf("notice = %q, want %q", res.Notice, want)
			}
		})
	})
	t.Run("a job that finishes meanwhile ends the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t)
			j := f.start(jobSpec{owner: "a"})
			time.AfterFunc(3*time.Second, func() { j.settle(jobs.JobStatusCompleted, "", "") })
			res, took := waitFor(t, f.tools.For("a"), map[string]any{"jobId": j.snap.ID})
			if !res.Finished || took != 3*time.Second {
				t.Errorf("job_wait = %+v after %v, want finished after 3s", res, took)
			}
		})
	})
	for _, tt := range []struct {
		name    string
		seconds any
		want    time.Duration
	}{
		{"the default timeout", nil, tools.DefaultWaitTimeout},
		{"zero is the default", 0, tools.DefaultWaitTimeout},
		{"the model's timeout", 2, 2 * time.Second},
		{"the cap", 600, tools.DefaultMaxWaitTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t)
				j := f.start(jobSpec{owner: "a"})
				args := map[string]any{"jobId": j.snap.ID}
				if tt.seconds != nil {
					args["timeoutSeconds"] = tt.seconds
				}
				res, took := waitFor(t, f.tools.For("a"), args)
				if res.Finished || res.Notice != "" || res.Job.Status != jobs.JobStatusRunning || took != tt.want {
					t.Errorf("job_wait = %+v after %v, want running, no notice, after %v", res, took, tt.want)
				}
			})
		})
	}
	t.Run("another session's job is unknown", func(t *testing.T) {
		f := newFixture(t)
		j := f.start(jobSpec{owner: "a"})
		j.settle(jobs.JobStatusCompleted, "", "")
		if e := callErr(t, f.tools.For("b"), "job_wait", map[string]any{"jobId": j.snap.ID}); e.Code != tools.ErrorCodeUnknownJob {
			t.Errorf("error = %v, want unknownJob", e)
		}
		if snap, _ := f.reg.Get("a", j.snap.ID); snap.Reported {
			t.Error("a foreign wait marked the job reported")
		}
	})
	t.Run("a cancelled call is cancelled", func(t *testing.T) {
		f := newFixture(t)
		j := f.start(jobSpec{owner: "a"})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := f.tools.For("a").Call(ctx, "job_wait", json.RawMessage(`{"jobId":"`+j.snap.ID.String()+`"}`))
		if !errors.Is(err, &agenttools.Error{Code: tools.ErrorCodeCancelled}) {
			t.Errorf("error = %v, want cancelled", err)
		}
	})
}
