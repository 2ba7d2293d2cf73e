package journal

import (
	"context"
	"errors"
	"iter"
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

// A pathCounter is a FileStore that counts which of its append paths a
// caller took.
type pathCounter struct {
	*FileStore
	appends, encoded int
}

func (p *pathCounter) Append(ctx context.Context, stream Stream, entries ...Entry) ([]uint64, error) {
	p.appends++
	return p.FileStore.Append(ctx, stream, entries...)
}

func (p *pathCounter) AppendEncoded(ctx context.Context, stream Stream, entries ...Entry) ([]uint64, error) {
	p.encoded++
	return p.FileStore.AppendEncoded(ctx, stream, entries...)
}

// An appendOnly store hides every method of its FileStore but the Store's.
type appendOnly struct{ Store }

// Both Recorders append the generated encoder's payloads through
// AppendEncoded when the store has it, skipping a second parse of what the
// encoder just wrote, and through Append when it does not; the facts read
// back the same either way.
func TestRecordersTakeTheEncodedPathWhenTheStoreHasIt(t *testing.T) {
	facts := []jobs.Fact{testjobs.Registered(1), testjobs.Settled(1, jobs.JobStatusCompleted, true)}
	idOf := func(f jobs.Fact) string { return f.FactType() + "/" + string(toTestStream(f)) }
	for _, c := range []struct {
		name string
		make func(Store) *Recorder[jobs.Fact]
	}{
		{"plain", func(s Store) *Recorder[jobs.Fact] { return NewRecorder(s, jobs.EncodeFact, toTestStream) }},
		{"retrying", func(s Store) *Recorder[jobs.Fact] {
			return NewRetryingRecorder(s, jobs.EncodeFact, toTestStream, idOf)
		}},
	} {
		counted := &pathCounter{FileStore: open(t, t.TempDir()+"/encoded.journal")}
		plain := &pathCounter{FileStore: open(t, t.TempDir()+"/plain.journal")}
		for _, f := range facts {
			if err := c.make(counted).Record(f); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if err := c.make(appendOnly{plain}).Record(f); err != nil {
				t.Fatalf("%s over a Store without AppendEncoded: %v", c.name, err)
			}
		}
		if counted.encoded != len(facts) || counted.appends != 0 {
			t.Errorf("%s: %d AppendEncoded and %d Append calls over a FileStore, want %d and none", c.name, counted.encoded, counted.appends, len(facts))
		}
		if plain.appends != len(facts) || plain.encoded != 0 {
			t.Errorf("%s: %d Append and %d AppendEncoded calls over a plain Store, want %d and none", c.name, plain.appends, plain.encoded, len(facts))
		}
		for _, s := range []*pathCounter{counted, plain} {
			got := collectFacts(t, s.ReadStream(context.Background(), testStream, 0))
			if !reflect.DeepEqual(got, facts) {
				t.Errorf("%s: read back %+v, want %+v", c.name, got, facts)
			}
		}
	}
}

func collectFacts(t *testing.T, records iter.Seq2[Record, error]) []jobs.Fact {
	t.Helper()
	var out []jobs.Fact
	for f, err := range Facts(records, jobs.DecodeFact) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}
