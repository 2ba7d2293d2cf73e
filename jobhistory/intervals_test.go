package jobhistory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/testjobs"
	"github.com/jobgen/jobgen/journal"
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
	r1 := testjobs.Registered(1)
	r1.ToolCall = "call-7"
	s1 := testjobs.Settled(1, jobs.JobStatusKilled, true)
	s1.Registration.ToolCall = "call-7"
	s1.Detail = "killed by user"
	ivs, err := Intervals(seqOf(nil,
		r1,
		testjobs.Registered(2), // never settled
		s1,
		testjobs.Settled(3, jobs.JobStatusFailed, false), // registered in an earlier file
	))
	if err != nil {
		t.Fatal(err)
	}
	want := []Interval{
		{JobID: testjobs.ID(1), Owner: "session-a", Kind: "bash", Label: "job number 1", Ordinal: 1, ToolCall: "call-7",
			RegisteredAt: r1.At, SettledAt: s1.At, Status: jobs.JobStatusKilled, Detail: "killed by user",
			ProducerReported: true, Complete: true},
		{JobID: testjobs.ID(2), Owner: "session-a", Kind: "bash", Label: "job number 2", Ordinal: 2, Record: true,
			RegisteredAt: testjobs.Registered(2).At},
		{JobID: testjobs.ID(3), Owner: "session-a", Kind: "bash", Label: "job number 3", Ordinal: 3,
			RegisteredAt: testjobs.Registered(3).At, SettledAt: testjobs.Registered(3).At + 1500, Status: jobs.JobStatusFailed,
			ProducerReported: false, Complete: true},
	}
	if len(ivs) != len(want) {
		t.Fatalf("got %d intervals, want %d: %+v", len(ivs), len(want), ivs)
	}
	for i := range want {
		if !reflect.DeepEqual(ivs[i], want[i]) {
			t.Errorf("interval %d:\n got %+v\nwant %+v", i, ivs[i], want[i])
		}
	}
}

// History that breaks the registry's invariants is an error, not a guess.
func TestIntervalsRefuseImpossibleHistory(t *testing.T) {
	for name, facts := range map[string][]jobs.Fact{
		"registered twice":                {testjobs.Registered(1), testjobs.Registered(1)},
		"settled twice":                   {testjobs.Registered(1), testjobs.Settled(1, jobs.JobStatusCompleted, true), testjobs.Settled(1, jobs.JobStatusFailed, false)},
		"registered after its settlement": {testjobs.Settled(1, jobs.JobStatusCompleted, true), testjobs.Registered(1)},
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
	unknown := &journal.DecodeError{Seq: 2, Err: jobs.ErrUnknownFact}
	ivs, err := Intervals(func(yield func(jobs.Fact, error) bool) {
		_ = yield(testjobs.Registered(1), nil) && yield(nil, unknown) && yield(testjobs.Registered(2), nil)
	})
	if err != nil || len(ivs) != 2 {
		t.Fatalf("with an unknown fact: %d intervals, %v; want 2, nil", len(ivs), err)
	}
	torn := &journal.RecordError{Offset: 99, Kind: journal.ErrTornTail, Reason: "cut"}
	ivs, err = Intervals(seqOf(torn, testjobs.Registered(1)))
	if !errors.Is(err, journal.ErrTornTail) || len(ivs) != 1 {
		t.Fatalf("with a torn tail: %d intervals, %v; want 1 and the tear", len(ivs), err)
	}
}

func TestWriteIntervalsTable(t *testing.T) {
	var out bytes.Buffer
	err := WriteIntervals(&out, seqOf(nil, testjobs.Registered(1), testjobs.Registered(2), testjobs.Settled(1, jobs.JobStatusCompleted, true)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "JOB ") {
		t.Fatalf("table:\n%s", out.String())
	}
	for _, want := range []string{testjobs.ID(1).String(), "bash-1", "session-a", "job number 1", "2023-11-14T22:13:20.001Z", "1.5s", "completed", "true"} {
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
	if err := WriteIntervals(&out, seqOf(nil, testjobs.Registered(2), testjobs.Settled(1, jobs.JobStatusCompleted, true)), WithJSON()); err != nil {
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
	// Complete intervals as they settle, then the incomplete ones.
	if len(got) != 2 || !got[0].Complete || got[0].Status != jobs.JobStatusCompleted || got[1].Complete || got[1].Ordinal != 2 {
		t.Fatalf("JSON lines decode to %+v", got)
	}
	if strings.Contains(out.String(), `"status"`) && strings.Count(out.String(), `"status"`) != 1 {
		t.Fatalf("an incomplete interval carries a status: %s", out.String())
	}
}

// StreamIntervals yields what Intervals projects, complete intervals in the
// order their jobs settled and then the incomplete ones in registration
// order, and ends an impossible history with its error after the open ones.
func TestStreamIntervals(t *testing.T) {
	facts := []jobs.Fact{testjobs.Registered(1), testjobs.Registered(2), testjobs.Registered(3), testjobs.Settled(2, jobs.JobStatusCompleted, true),
		testjobs.Settled(4, jobs.JobStatusFailed, false), testjobs.Settled(1, jobs.JobStatusKilled, true)}
	var got []string
	for iv, err := range StreamIntervals(seqOf(nil, facts...)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s:%v", iv.Name(), iv.Complete))
	}
	if want := "[bash-2:true bash-4:true bash-1:true bash-3:false]"; fmt.Sprint(got) != want {
		t.Fatalf("StreamIntervals = %v, want %s", got, want)
	}
	all, err := Intervals(seqOf(nil, facts...))
	if err != nil || len(all) != len(got) {
		t.Fatalf("Intervals = %d, %v; StreamIntervals yields %d", len(all), err, len(got))
	}
	var n int
	var last error
	for iv, err := range StreamIntervals(seqOf(nil, testjobs.Registered(1), testjobs.Registered(2), testjobs.Registered(1))) {
		n++
		if err != nil {
			last = err
		} else if iv.Complete {
			t.Fatalf("an open interval came out complete: %+v", iv)
		}
	}
	if n != 3 || last == nil || !strings.Contains(last.Error(), "registered twice") {
		t.Fatalf("a job registered twice: %d items, last error %v; want the two open intervals, then the error", n, last)
	}
}

// A table longer than one block stays aligned: every row's columns start
// where the header's do, when no later cell is wider.
func TestWriteIntervalsTableAcrossBlocks(t *testing.T) {
	var facts []jobs.Fact
	for n := 1; n <= tableRows+10; n++ {
		r := testjobs.Registered(n)
		r.Label, r.Ordinal = "same label", 1
		facts = append(facts, r)
	}
	var out bytes.Buffer
	if err := WriteIntervals(&out, seqOf(nil, facts...)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != tableRows+11 {
		t.Fatalf("%d lines, want %d", len(lines), tableRows+11)
	}
	at := strings.Index(lines[0], "REGISTERED")
	for i, l := range lines[1:] {
		if l[at-2:at] != "  " || l[at] == ' ' {
			t.Fatalf("row %d is not aligned with the header at %d:\n%s\n%s", i+1, at, lines[0], l)
		}
	}
}

// A writer that fails ends WriteIntervals with its error, without reading
// the rest of the facts, and leaves no formatter behind.
func TestWriteIntervalsStopsWhenTheWriterFails(t *testing.T) {
	errDisk := errors.New("disk full")
	read := 0
	facts := func(yield func(jobs.Fact, error) bool) {
		for n := 1; n <= 1_000_000; n++ {
			read++
			if !yield(testjobs.Settled(n, jobs.JobStatusCompleted, true), nil) {
				return
			}
		}
	}
	synctest.Test(t, func(t *testing.T) {
		err := WriteIntervals(failingWriter{errDisk}, facts, WithJSON())
		if !errors.Is(err, errDisk) {
			t.Fatalf("WriteIntervals = %v, want %v", err, errDisk)
		}
		if read == 1_000_000 {
			t.Fatal("read every fact after the writer failed")
		}
		// A goroutine left blocked deadlocks the bubble here; one still
		// running shows in the stacks once the bubble has settled.
		synctest.Wait()
		buf := make([]byte, 1<<20)
		stacks := buf[:runtime.Stack(buf, true)]
		for _, left := range []string{"jobhistory.startFormatter", "jobhistory.(*aheadReader).read"} {
			if bytes.Contains(stacks, []byte(left)) {
				t.Fatalf("%s outlived WriteIntervals:\n%s", left, stacks)
			}
		}
	})
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// StreamIntervals projects what Intervals projects, interval for interval,
// on histories long enough for its set of settled jobs to grow and split,
// and refuses an impossible history at the same fact with the same error.
func TestStreamIntervalsAgreeWithIntervals(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 141))
	for round := range 4 {
		var facts []jobs.Fact
		open := []int{}
		for n := range 50_000 {
			switch k := r.IntN(10); {
			case k < 6:
				facts = append(facts, testjobs.Registered(n))
				open = append(open, n)
			case k < 9 && len(open) > 0:
				i := r.IntN(len(open))
				facts = append(facts, testjobs.Settled(open[i], jobs.JobStatusCompleted, true))
				open = append(open[:i], open[i+1:]...)
			default:
				facts = append(facts, testjobs.Settled(n, jobs.JobStatusFailed, false)) // registered in an earlier file
			}
		}
		if round > 0 { // an impossible fact somewhere
			at := r.IntN(len(facts))
			bad := []jobs.Fact{facts[r.IntN(at+1)], testjobs.Registered(r.IntN(50_000)), testjobs.Settled(r.IntN(50_000), jobs.JobStatusKilled, true)}
			facts = slices.Insert(facts, at, bad[round%3])
		}
		want, werr := Intervals(seqOf(nil, facts...))
		var got []Interval
		var gerr error
		for iv, err := range StreamIntervals(seqOf(nil, facts...)) {
			if err != nil {
				gerr = err
				continue
			}
			got = append(got, iv)
		}
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("round %d: Intervals ends with %v, StreamIntervals with %v", round, werr, gerr)
		}
		byID := func(a, b Interval) int { return bytes.Compare(a.JobID[:], b.JobID[:]) }
		slices.SortFunc(want, byID)
		slices.SortFunc(got, byID)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("round %d: Intervals projects %d intervals, StreamIntervals %d, not the same", round, len(want), len(got))
		}
	}
}
