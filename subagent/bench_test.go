package subagent_test

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

var resumeFacts = flag.String("subagent.resumefacts", "1000,100000", "history lengths of BenchmarkColdResume, comma-separated (the scoreboard adds 1000000)")

// steeredHost makes agents that are always in a turn and claim each
// message as it is delivered: a busy child being steered.
type steeredHost struct{}

type steeredAgent struct {
	id    jobs.SessionID
	inbox subagent.Inbox
	busy  chan struct{} // closed by Cancel: in a turn until then
	once  sync.Once
}

func (steeredHost) Materialize(ctx context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
	return &steeredAgent{id: c.ID, inbox: in, busy: make(chan struct{})}, nil
}
func (a *steeredAgent) ID() jobs.SessionID { return a.id }
func (a *steeredAgent) Deliver(m subagents.Message, wake bool) error {
	a.inbox.Claimed(m.ID)
	return nil
}
func (a *steeredAgent) Cancel(error, bool)                { a.once.Do(func() { close(a.busy) }) }
func (a *steeredAgent) Idle() <-chan struct{}             { return a.busy }
func (a *steeredAgent) Dispose(ctx context.Context) error { return nil }

// BenchmarkFollowupResident measures a follow-up to a resident, busy child:
// the accepted fact, the delivery and the durable claim. The baseline is
// what the two facts cost the store alone (encode, append, flush), the
// floor any durable follow-up pays.
func BenchmarkFollowupResident(b *testing.B) {
	content := text("steer: look at the pump first")
	b.Run("baseline=encode+append-two-facts+flush", func(b *testing.B) {
		store := subagenttest.NewMemStore()
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			id := subagents.NewMessageID()
			acc, _ := subagents.EncodeFact(subagents.SubagentMessageAccepted{Message: id, Source: subagents.MessageSource{Kind: subagents.SourceKindUser}, Content: content, Wake: true})
			store.Append(ctx, "c1", journal.Entry{ID: "accepted/" + id.String(), Payload: acc})
			cl, _ := subagents.EncodeFact(subagents.SubagentMessageClaimed{Message: id, Run: subagents.RunID(id)})
			store.Append(ctx, "c1", journal.Entry{ID: "claimed/" + id.String(), Payload: cl})
			store.Flush(ctx)
		}
	})
	b.Run("followup", func(b *testing.B) {
		store := subagenttest.NewMemStore()
		svc := subagent.New(subagent.WithStore(store), subagent.WithHost(steeredHost{}))
		defer svc.Close(context.Background())
		svc.RegisterProvider(&subagenttest.Provider{ProviderName: "fork"})
		root := subagenttest.NewAgent("root")
		svc.Attach(root)
		ctx := context.Background()
		if _, _, err := svc.StartContinuable(ctx, subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c1", Parent: root, Prompt: content}); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := svc.Followup(ctx, root, "c1", content, subagent.FollowupOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkColdResume measures a follow-up that resumes a child cold from
// a history of 1,000 and 100,000 facts (-subagent.resumefacts for more):
// find and read the last checkpoint and what follows it, fold, authorize,
// materialize, record the residency, deliver. The baseline resumes a child
// of the same history written without checkpoints, which reads and folds
// the whole stream, in the same run, on the same store. Each store is the
// file store and PostgreSQL (JOBGEN_TEST_POSTGRES).
func BenchmarkColdResume(b *testing.B) {
	var sizes []int
	for _, f := range strings.Split(*resumeFacts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("-subagent.resumefacts: %v", err)
		}
		sizes = append(sizes, n)
	}
	for _, st := range []struct {
		name string
		open func(b *testing.B) journal.Store
	}{
		{"file", func(b *testing.B) journal.Store {
			s, err := journal.Open(filepath.Join(b.TempDir(), "agents.journal"))
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
		{"postgres", func(b *testing.B) journal.Store {
			s, err := pgstore.Open(context.Background(), pgtest.DSN(b), pgstore.WithSchema(pgtest.Schema(b)))
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
	} {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("store=%s/facts=%d", st.name, n), func(b *testing.B) {
				store := st.open(b)
				defer store.Close(context.Background())
				writeHistory(b, store, "c1", n, true)
				writeHistory(b, store, "c0", n, false)
				var fresh1, fresh0 = true, true
				b.Run("checkpointed", func(b *testing.B) { resumeLoop(b, store, "c1", true, &fresh1) })
				b.Run("baseline=full-read", func(b *testing.B) { resumeLoop(b, store, "c0", false, &fresh0) })
			})
		}
	}
}

// resumeLoop resumes child from store once an iteration, timing only the
// follow-up: a new Service and root are set up before the timer starts,
// and after it stops the agent claims what it was given and the Service
// closes (writing the residency's end, and its checkpoint when checkpoints
// are on). The first resume of a fresh history must redeliver the three
// messages it left waiting.
func resumeLoop(b *testing.B, store journal.Store, child jobs.SessionID, checkpoints bool, fresh *bool) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		host := &quietHost{}
		svc := subagent.New(subagent.WithStore(store), subagent.WithHost(host), subagent.WithCheckpoints(checkpoints))
		root := subagenttest.NewAgent("root")
		svc.Attach(root)
		b.StartTimer()
		if _, err := svc.Followup(ctx, root, child, text("more"), subagent.FollowupOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if *fresh && len(host.agent.got) != 4 {
			b.Fatalf("the first resume delivered %d messages, want the 3 waiting and the follow-up", len(host.agent.got))
		}
		*fresh = false
		host.agent.inbox.Claimed(host.agent.got...)
		svc.Close(ctx)
		b.StartTimer()
	}
}

// quietHost makes one agent that is always busy and claims nothing itself.
type quietHost struct{ agent *quietAgent }

type quietAgent struct {
	steeredAgent
	got []subagents.MessageID
}

func (h *quietHost) Materialize(ctx context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
	h.agent = &quietAgent{steeredAgent: steeredAgent{id: c.ID, inbox: in, busy: make(chan struct{})}}
	return h.agent, nil
}

func (a *quietAgent) Deliver(m subagents.Message, wake bool) error {
	a.got = append(a.got, m.ID)
	return nil
}

// writeHistory writes about n facts of a settled child of "root" the way
// the manager writes them: the creation, then residencies of ten messages
// each (accepted and claimed), each started and ended, the last leaving
// three quiet messages waiting; with checkpoints, each end is followed by
// its checkpoint, pointed at from the child's pointer stream.
func writeHistory(b *testing.B, store journal.Store, child jobs.SessionID, n int, checkpoints bool) {
	w := &historyWriter{b: b, store: store, child: child, checkpoints: checkpoints}
	w.add(&subagents.SubagentCreated{Child: child, Header: subagents.ChildHeader{ParentSession: "root", Origin: subagents.OriginSubagent, DelegationDepth: 1},
		Descriptor: subagents.Descriptor{Version: subagent.DescriptorVersion, Mode: subagents.DescriptorModeContinuable, Provider: "fork", Label: "x"}})
	content := text("a message of ordinary length, about as long as a short instruction to a model")
	for w.seq < uint64(n)-25 {
		w.residency(content, 10, 0)
	}
	w.residency(content, 0, 3)
	w.flush()
	if err := store.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
}

type historyWriter struct {
	b           *testing.B
	store       journal.Store
	child       jobs.SessionID
	checkpoints bool
	seq         uint64 // the last seq written to the child's stream
	pending     []journal.Entry
	pointers    []journal.Entry // for the child's pointer stream
	index       int
}

func (w *historyWriter) add(f subagents.Fact) {
	p, err := subagents.EncodeFact(f)
	if err != nil {
		w.b.Fatal(err)
	}
	w.seq++
	w.pending = append(w.pending, journal.Entry{ID: factID(f), Payload: p})
	if len(w.pending) >= 1000 {
		w.flush()
	}
}

func (w *historyWriter) residency(content []subagents.ContentBlock, claimed, waiting int) {
	run := subagents.NewRunID()
	w.add(&subagents.SubagentResidencyStarted{Run: run})
	var left []subagents.WaitingMessage
	for i := range claimed + waiting {
		id := subagents.NewMessageID()
		w.add(&subagents.SubagentMessageAccepted{Message: id, Source: subagents.MessageSource{Kind: subagents.SourceKindUser}, Content: content, Wake: i < claimed})
		if i < claimed {
			w.add(&subagents.SubagentMessageClaimed{Message: id, Run: run})
		} else {
			left = append(left, subagents.WaitingMessage{Message: subagents.Message{ID: id, Source: subagents.MessageSource{Kind: subagents.SourceKindUser}, Content: content}})
		}
	}
	w.add(&subagents.SubagentResidencyEnded{Run: run, StopReason: subagents.StopReasonCompleted, LastMessage: "done"})
	if !w.checkpoints {
		return
	}
	w.index++
	w.add(&subagents.SubagentCheckpoint{Run: run, Index: w.index, Header: subagents.ChildHeader{ParentSession: "root", Origin: subagents.OriginSubagent, DelegationDepth: 1},
		Descriptor: subagents.Descriptor{Version: subagent.DescriptorVersion, Mode: subagents.DescriptorModeContinuable, Provider: "fork", Label: "x"}, Waiting: left})
	w.point(w.index, w.seq)
}

// point writes the pointer to checkpoint index at seq, as the manager does.
func (w *historyWriter) point(index int, seq uint64) {
	ptr := &subagents.SubagentCheckpointed{Child: w.child, Index: index, Seq: int64(seq)}
	pl, err := subagents.EncodeFact(ptr)
	if err != nil {
		w.b.Fatal(err)
	}
	w.pointers = append(w.pointers, journal.Entry{ID: factID(ptr), Payload: pl})
}

// flush appends what waits: the child's facts first, then the pointers.
func (w *historyWriter) flush() {
	ctx := context.Background()
	if len(w.pending) > 0 {
		if _, err := w.store.Append(ctx, journal.Stream(w.child), w.pending...); err != nil {
			w.b.Fatal(err)
		}
		w.pending = w.pending[:0]
	}
	if len(w.pointers) > 0 {
		if _, err := w.store.Append(ctx, journal.Stream(string(w.child)+"/checkpoint"), w.pointers...); err != nil {
			w.b.Fatal(err)
		}
		w.pointers = w.pointers[:0]
	}
}

// factID is the record id the manager gives a fact.
func factID(f subagents.Fact) string {
	switch f := f.(type) {
	case *subagents.SubagentCreated:
		return "created"
	case *subagents.SubagentResidencyStarted:
		return "started/" + f.Run.String()
	case *subagents.SubagentResidencyEnded:
		return "ended/" + f.Run.String()
	case *subagents.SubagentMessageAccepted:
		return "accepted/" + f.Message.String()
	case *subagents.SubagentMessageClaimed:
		return "claimed/" + f.Message.String()
	case *subagents.SubagentCheckpoint:
		return "checkpoint/" + f.Run.String()
	case *subagents.SubagentCheckpointed:
		return "checkpoint/" + strconv.Itoa(f.Index)
	}
	panic(fmt.Sprintf("no record id for %T", f))
}
