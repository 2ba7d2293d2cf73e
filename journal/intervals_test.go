package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"iter"
	"os"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
)

// seqOf yields facts as a reader would, with an optional error at the end.
func seqOf(end error, facts ...jobs.Fact) iter.Seq2[jobs.Fact, error] {
	return func(yield func(jobs.Fact, error) bool) {
		for _, f := range facts {
			if !yield(f, nil) {
				return
			}
		}
		if end != nil {
			yield(nil, end)
		}
	}
}

func TestIntervals(t *testing.T) {
	r1 := registered(1)
	r1.ToolCall = "call-7"
	s1 := settled(1, jobs.JobStatusKilled, true)
	s1.Registration.ToolCall = "call-7"
	s1.Detail = "killed by user"
	ivs, err := Intervals(seqOf(nil,
		r1,
		registered(2), // never settled
		s1,
		settled(3, jobs.JobStatusFailed, false), // registered in an earlier file
	))
	if err != nil {
		t.Fatal(err)
	}
	want := []Interval{
		{JobID: jobID(1), Owner: "session-a", Kind: "bash", Label: "job number 1", Ordinal: 1, ToolCall: "call-7",
			RegisteredAt: r1.At, SettledAt: s1.At, Status: jobs.JobStatusKilled, Detail: "killed by user",
			ProducerReported: true, Complete: true},
		{JobID: jobID(2), Owner: "session-a", Kind: "bash", Label: "job number 2", Ordinal: 2, Record: true,
			RegisteredAt: registered(2).At},
		{JobID: jobID(3), Owner: "session-a", Kind: "bash", Label: "job number 3", Ordinal: 3,
			RegisteredAt: registered(3).At, SettledAt: registered(3).At + 1500, Status: jobs.JobStatusFailed,
			ProducerReported: false, Complete: true},
	}
	if len(ivs) != len(want) {
		t.Fatalf("got %d intervals, want %d: %+v", len(ivs), len(want), ivs)
	}
	for i := range want {
		if ivs[i] != want[i] {
			t.Errorf("interval %d:\n got %+v\nwant %+v", i, ivs[i], want[i])
		}
	}
}

// History that breaks the registry's invariants is an error, not a guess.
func TestIntervalsRefuseImpossibleHistory(t *testing.T) {
	for name, facts := range map[string][]jobs.Fact{
		"registered twice":                {registered(1), registered(1)},
		"settled twice":                   {registered(1), settled(1, jobs.JobStatusCompleted, true), settled(1, jobs.JobStatusFailed, false)},
		"registered after its settlement": {settled(1, jobs.JobStatusCompleted, true), registered(1)},
	} {
		ivs, err := Intervals(seqOf(nil, facts...))
		if err == nil || !strings.Contains(err.Error(), name) || len(ivs) != 1 {
			t.Errorf("%s: Intervals = %d intervals, %v; want the one before it and an error", name, len(ivs), err)
		}
	}
}

// Unknown facts are skipped; storage errors end the projection, with what
// was projected before them.
func TestIntervalsErrors(t *testing.T) {
	unknown := &DecodeError{Seq: 2, Err: jobs.ErrUnknownFact}
	ivs, err := Intervals(func(yield func(jobs.Fact, error) bool) {
		_ = yield(registered(1), nil) && yield(nil, unknown) && yield(registered(2), nil)
	})
	if err != nil || len(ivs) != 2 {
		t.Fatalf("with an unknown fact: %d intervals, %v; want 2, nil", len(ivs), err)
	}
	torn := &RecordError{Offset: 99, Kind: ErrTornTail, Reason: "cut"}
	ivs, err = Intervals(seqOf(torn, registered(1)))
	if !errors.Is(err, ErrTornTail) || len(ivs) != 1 {
		t.Fatalf("with a torn tail: %d intervals, %v; want 1 and the tear", len(ivs), err)
	}
}

func TestWriteIntervalsTable(t *testing.T) {
	var out bytes.Buffer
	err := WriteIntervals(&out, seqOf(nil, registered(1), registered(2), settled(1, jobs.JobStatusCompleted, true)), false)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "JOB ") {
		t.Fatalf("table:\n%s", out.String())
	}
	for _, want := range []string{jobID(1).String(), "bash-1", "session-a", "job number 1", "2023-11-14T22:13:20.001Z", "1.5s", "completed", "true"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("row %q lacks %q", lines[1], want)
		}
	}
	if !strings.Contains(lines[2], "bash-2") || !strings.Contains(lines[2], "incomplete") {
		t.Errorf("row %q does not show an incomplete interval", lines[2])
	}
}

func TestWriteIntervalsJSON(t *testing.T) {
	var out bytes.Buffer
	if err := WriteIntervals(&out, seqOf(nil, registered(2), settled(1, jobs.JobStatusCompleted, true)), true); err != nil {
		t.Fatal(err)
	}
	var got []Interval
	for line := range strings.Lines(out.String()) {
		var iv Interval
		if err := json.Unmarshal([]byte(line), &iv); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, iv)
	}
	if len(got) != 2 || got[0].Complete || got[0].Ordinal != 2 || !got[1].Complete || got[1].Status != jobs.JobStatusCompleted {
		t.Fatalf("JSON lines decode to %+v", got)
	}
	if strings.Contains(out.String(), `"status"`) && strings.Count(out.String(), `"status"`) != 1 {
		t.Fatalf("an incomplete interval carries a status: %s", out.String())
	}
}

// Cat prints each record as {"seq","fact"} JSON lines, the fact verbatim,
// then reports damage after the records before it.
func TestCat(t *testing.T) {
	path, off := makeJournal(t, 2)
	var out bytes.Buffer
	if err := Cat(&out, path); err != nil {
		t.Fatal(err)
	}
	want := `{"seq":1,"fact":` + string(payload(t, 1)) + "}\n" + `{"seq":2,"fact":` + string(payload(t, 2)) + "}\n"
	if out.String() != want {
		t.Fatalf("Cat printed\n%s\nwant\n%s", out.String(), want)
	}
	for line := range strings.Lines(out.String()) {
		if !json.Valid([]byte(line)) {
			t.Fatalf("line %q is not JSON", line)
		}
	}
	full, _ := os.ReadFile(path)
	os.WriteFile(path, full[:off[2]-5], 0o644)
	out.Reset()
	err := Cat(&out, path)
	if !errors.Is(err, ErrTornTail) || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("Cat of a torn file printed %q and returned %v", out.String(), err)
	}
}

// Check passes an intact file with a summary and names the first bad record.
func TestCheck(t *testing.T) {
	path, off := makeJournal(t, 3)
	sum, err := Check(path)
	if err != nil || sum != (Summary{Version: 2, Records: 3, Streams: 1, FirstPos: 1, LastPos: 3, Good: off[3]}) {
		t.Fatalf("Check = %+v, %v", sum, err)
	}
	full, _ := os.ReadFile(path)
	os.WriteFile(path, full[:off[3]-1], 0o644)
	if _, err := Check(path); !errors.Is(err, ErrTornTail) || !strings.Contains(err.Error(), "offset "+itoa(off[2])) {
		t.Fatalf("Check of a torn file = %v, want ErrTornTail at %d", err, off[2])
	}
	empty := t.TempDir() + "/empty"
	os.WriteFile(empty, nil, 0o644)
	if _, err := Check(empty); !errors.Is(err, ErrNotJournal) || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("Check of an empty file = %v", err)
	}
	if _, err := Check(t.TempDir()); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("Check of a directory = %v", err)
	}
}
