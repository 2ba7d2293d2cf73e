package subagent_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// A fixture is a Service over an in-memory store and a scripted host, with
// one attached root agent "root" and a provider "fork".
type fixture struct {
	t     *testing.T
	store *subagenttest.MemStore
	host  *subagenttest.Host
	svc   *subagent.Service
	prov  *subagenttest.Provider
	root  *subagenttest.Agent
	// rootAgent is the attached root as the Service knows it: root, or
	// the agent newFixtureWithRoot was given.
	rootAgent subagent.Agent
}

func newFixture(t *testing.T, store *subagenttest.MemStore, opts ...subagent.Option) *fixture {
	t.Helper()
	return newFixtureWithRoot(t, store, nil, opts...)
}

// newFixtureWithRoot is newFixture with root attached instead of a plain
// scripted agent, when root is not nil.
func newFixtureWithRoot(t *testing.T, store *subagenttest.MemStore, root subagent.Agent, opts ...subagent.Option) *fixture {
	t.Helper()
	if store == nil {
		store = subagenttest.NewMemStore()
	}
	f := &fixture{t: t, store: store, host: subagenttest.NewHost(), prov: &subagenttest.Provider{ProviderName: "fork"}}
	f.svc = subagent.New(append([]subagent.Option{subagent.WithStore(store), subagent.WithHost(f.host)}, opts...)...)
	if _, err := f.svc.RegisterProvider(f.prov); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.svc.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	f.root = subagenttest.NewAgent("root")
	f.rootAgent = f.root
	if root != nil {
		f.rootAgent = root
	}
	if _, err := f.svc.Attach(f.rootAgent); err != nil {
		t.Fatal(err)
	}
	return f
}

// restart is a process restart: a new Service (and host and root) over
// what the store had flushed.
func (f *fixture) restart() *fixture {
	f.t.Helper()
	return newFixture(f.t, f.store.Crash())
}

func text(s string) []subagents.ContentBlock {
	return []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: s}}
}

func (f *fixture) start(id jobs.SessionID, parent subagent.Agent, prompt string) subagents.MessageID {
	f.t.Helper()
	got, msg, err := f.svc.StartContinuable(context.Background(), subagent.ContinuableSpec{
		Provider: "fork", Label: "child " + string(id), ChildID: id, Parent: parent, Prompt: text(prompt),
	})
	if err != nil {
		f.t.Fatalf("StartContinuable(%s): %v", id, err)
	}
	if got != id {
		f.t.Fatalf("StartContinuable returned child %s, want %s", got, id)
	}
	return msg
}

// child starts child id under the root with the prompt "x" and returns its
// agent.
func (f *fixture) child(id jobs.SessionID) *subagenttest.Agent {
	f.t.Helper()
	f.start(id, f.root, "x")
	return f.host.Agent(id)
}

// nest starts child "p" under the root and, inside a turn of p, its child
// "c", and returns the agents of p and c.
func (f *fixture) nest() (pa, ca *subagenttest.Agent) {
	f.t.Helper()
	f.start("p", f.root, "parent")
	pa = f.host.Agent("p")
	pa.BeginTurn()
	f.start("c", pa, "child")
	return pa, f.host.Agent("c")
}

// turn runs one scripted turn of child's current agent and waits for the
// manager to react.
func (f *fixture) turn(id jobs.SessionID, reason subagents.StopReason, last string) []subagents.Message {
	f.t.Helper()
	a := f.host.Agent(id)
	if a == nil {
		f.t.Fatalf("child %s has no live agent", id)
	}
	claimed := a.BeginTurn()
	a.EndTurn(reason, last)
	synctest.Wait()
	return claimed
}

// facts decodes the child's stream.
func (f *fixture) facts(id jobs.SessionID) []subagents.Fact {
	f.t.Helper()
	var out []subagents.Fact
	for rec, err := range f.store.ReadStream(context.Background(), journal.Stream(id), 0) {
		if err != nil {
			f.t.Fatal(err)
		}
		fact, err := subagents.DecodeFact(rec.Payload)
		if err != nil {
			f.t.Fatalf("seq %d: %v", rec.Seq, err)
		}
		out = append(out, fact)
	}
	return out
}

// types lists the fact types of a child's stream.
func (f *fixture) types(id jobs.SessionID) []string {
	var out []string
	for _, x := range f.facts(id) {
		out = append(out, x.FactType())
	}
	return out
}

func ids(msgs []subagents.Message) []subagents.MessageID {
	var out []subagents.MessageID
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return out
}

// A logRecorder is a slog.Handler that keeps every record, with its
// attributes flattened to strings, for tests of what is logged.
type logRecorder struct {
	mu      sync.Mutex
	records []loggedRecord
}

type loggedRecord struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	rec := loggedRecord{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	l.mu.Lock()
	l.records = append(l.records, rec)
	l.mu.Unlock()
	return nil
}

// find returns the records whose message contains msg.
func (l *logRecorder) find(msg string) []loggedRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []loggedRecord
	for _, r := range l.records {
		if strings.Contains(r.msg, msg) {
			out = append(out, r)
		}
	}
	return out
}

// withLog returns an option that logs to a new recorder, and the recorder.
func withLog() (subagent.Option, *logRecorder) {
	l := &logRecorder{}
	return subagent.WithLogger(slog.New(l)), l
}

// A flushFailing store appends as its MemStore does but fails every Flush
// while fail is set: a disk that takes writes and loses the sync.
type flushFailing struct {
	*subagenttest.MemStore
	mu   sync.Mutex
	fail error
}

func (s *flushFailing) Flush(ctx context.Context) error {
	s.mu.Lock()
	err := s.fail
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.MemStore.Flush(ctx)
}

func (s *flushFailing) failFlushes(err error) {
	s.mu.Lock()
	s.fail = err
	s.mu.Unlock()
}

// lastEnd returns the last residency-ended fact of the child's stream.
func (f *fixture) lastEnd(id jobs.SessionID) subagents.SubagentResidencyEnded {
	f.t.Helper()
	fs := f.facts(id)
	for i := len(fs) - 1; i >= 0; i-- {
		if e, ok := fs[i].(subagents.SubagentResidencyEnded); ok {
			return e
		}
	}
	f.t.Fatalf("%s has no residency-ended fact: %v", id, f.types(id))
	return subagents.SubagentResidencyEnded{}
}

// typesOf lists the fact types of a stream of store.
func typesOf(store *subagenttest.MemStore, id jobs.SessionID) []string {
	var out []string
	for rec, err := range store.ReadStream(context.Background(), journal.Stream(id), 0) {
		if err != nil {
			return append(out, "error: "+err.Error())
		}
		f, err := subagents.DecodeFact(rec.Payload)
		if err != nil {
			out = append(out, "?")
			continue
		}
		out = append(out, f.FactType())
	}
	return out
}
