package journal

import (
	"errors"
	"reflect"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/testjobs"
)

// The registry's Recorder contract, restated here so that the journal does
// not import the registry.
type registryRecorder interface {
	Record(f jobs.Fact) error
}

var _ registryRecorder = NewRecorder[jobs.Fact](nil, jobs.EncodeFact, toTestStream)

// Recorded facts read back equal, in order, with the registry's timestamps
// untouched.
func TestRecorderRoundTrip(t *testing.T) {
	path := t.TempDir() + "/rec.journal"
	s := open(t, path)
	var rec registryRecorder = NewRecorder(s, jobs.EncodeFact, toTestStream)
	want := []jobs.Fact{testjobs.Registered(1), testjobs.Registered(2), testjobs.Settled(1, jobs.JobStatusCompleted, true)}
	for _, f := range want {
		if err := rec.Record(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	var got []jobs.Fact
	for f, err := range Facts(ReadFile(path), jobs.DecodeFact) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, f)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v, want %+v", got, want)
	}
}

// Record returns the store's failure to the caller, which contains it.
func TestRecorderReturnsAppendError(t *testing.T) {
	s := open(t, t.TempDir()+"/closed.journal")
	s.close()
	if err := NewRecorder(s, jobs.EncodeFact, toTestStream).Record(testjobs.Registered(1)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Record on a closed store = %v, want ErrClosed", err)
	}
	enc := func(jobs.Fact) ([]byte, error) { return nil, errDisk }
	if err := NewRecorder(s, enc, toTestStream).Record(testjobs.Registered(1)); !errors.Is(err, errDisk) {
		t.Fatalf("Record with a failing codec = %v, want its error", err)
	}
}

// A fact the codec does not know is an error for its record only; reading
// goes on. A journal is generic: facts of another union live beside these.
func TestFactsSkippable(t *testing.T) {
	path := t.TempDir() + "/mixed.journal"
	s := open(t, path)
	s.append1(payload(t, 1))
	s.append1([]byte(`{"type":"subagent/started","v":1,"data":{}}`))
	s.append1(payload(t, 2))
	s.close()
	var got []jobs.Fact
	var decodeErrs []error
	for f, err := range Facts(ReadFile(path), jobs.DecodeFact) {
		if err != nil {
			decodeErrs = append(decodeErrs, err)
			continue
		}
		got = append(got, f)
	}
	var derr *DecodeError
	if len(got) != 2 || len(decodeErrs) != 1 || !errors.Is(decodeErrs[0], jobs.ErrUnknownFact) ||
		!errors.As(decodeErrs[0], &derr) || derr.Seq != 2 {
		t.Fatalf("got %d facts and errors %v; want 2 facts and an unknown-fact error at seq 2", len(got), decodeErrs)
	}
}
