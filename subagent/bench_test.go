package subagent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

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
// the accepted fact, the delivery and the claimed fact. The baseline is
// what the two facts cost the store alone (encode and append), the floor
// any durable follow-up pays.
func BenchmarkFollowupResident(b *testing.B) {
	content := text("steer: look at the pump first")
	b.Run("baseline=encode+append-two-facts", func(b *testing.B) {
		store := subagenttest.NewMemStore()
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			id := subagents.NewMessageID()
			acc, _ := subagents.EncodeFact(subagents.SubagentMessageAccepted{Message: id, Source: subagents.MessageSource{Kind: subagents.SourceKindUser}, Content: content, Wake: true})
			store.Append(ctx, "c1", journal.Entry{ID: "accepted/" + id.String(), Payload: acc})
			cl, _ := subagents.EncodeFact(subagents.SubagentMessageClaimed{Message: id, Run: subagents.RunID(id)})
			store.Append(ctx, "c1", journal.Entry{ID: "claimed/" + id.String(), Payload: cl})
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

// historyStore returns a store holding one settled child "c1" of "root"
// whose stream has about n facts: the creation, then residencies of ten
// messages each (accepted and claimed), each started and ended.
func historyStore(b *testing.B, n int) *subagenttest.MemStore {
	store := subagenttest.NewMemStore()
	writeHistory(b, store, n)
	return store
}

func writeHistory(b *testing.B, store journal.Store, n int) {
	ctx := context.Background()
	add := func(id string, f subagents.Fact) {
		p, err := subagents.EncodeFact(f)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := store.Append(ctx, "c1", journal.Entry{ID: id, Payload: p}); err != nil {
			b.Fatal(err)
		}
	}
	add("created", subagents.SubagentCreated{Child: "c1", Header: subagents.ChildHeader{ParentSession: "root", Origin: subagents.OriginSubagent, DelegationDepth: 1},
		Descriptor: subagents.Descriptor{Version: 2, Mode: subagents.DescriptorModeContinuable, Provider: "fork", Label: "x"}})
	content := text("a message of ordinary length, about as long as a short instruction to a model")
	for facts := 1; facts < n; {
		run := subagents.NewRunID()
		add("started/"+run.String(), subagents.SubagentResidencyStarted{Run: run})
		facts++
		for i := 0; i < 10 && facts < n-1; i++ {
			id := subagents.NewMessageID()
			add("accepted/"+id.String(), subagents.SubagentMessageAccepted{Message: id, Source: subagents.MessageSource{Kind: subagents.SourceKindUser}, Content: content, Wake: true})
			add("claimed/"+id.String(), subagents.SubagentMessageClaimed{Message: id, Run: run})
			facts += 2
		}
		add("ended/"+run.String(), subagents.SubagentResidencyEnded{Run: run, StopReason: subagents.StopReasonCompleted, LastMessage: "done"})
		facts++
	}
	if err := store.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkColdResume measures a follow-up that resumes a child cold from
// a stream of 10, 1,000 and 100,000 facts: read, fold, authorize,
// materialize, record the residency, deliver. The baseline reads the same
// stream from the store without decoding it.
func BenchmarkColdResume(b *testing.B) {
	for _, n := range []int{10, 1_000, 100_000} {
		base := historyStore(b, n)
		b.Run(fmt.Sprintf("facts=%d/baseline=read-stream", n), func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				k := 0
				for _, err := range base.ReadStream(ctx, "c1", 0) {
					if err != nil {
						b.Fatal(err)
					}
					k++
				}
				if k < n {
					b.Fatalf("read %d records, want %d", k, n)
				}
			}
		})
		b.Run(fmt.Sprintf("facts=%d/resume", n), func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				resumeTimed(b, ctx, base.Crash())
				b.StartTimer()
			}
		})
		b.Run(fmt.Sprintf("facts=%d/resume-filestore", n), func(b *testing.B) {
			ctx := context.Background()
			dir := b.TempDir()
			basePath := filepath.Join(dir, "base.journal")
			fs, err := journal.Open(basePath)
			if err != nil {
				b.Fatal(err)
			}
			writeHistory(b, fs, n)
			if err := fs.Close(ctx); err != nil {
				b.Fatal(err)
			}
			raw, err := os.ReadFile(basePath)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				b.StopTimer()
				i++
				path := filepath.Join(dir, fmt.Sprintf("copy-%d.journal", i))
				if err := os.WriteFile(path, raw, 0o600); err != nil {
					b.Fatal(err)
				}
				store, err := journal.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				resumeTimed(b, ctx, store)
				store.Close(ctx)
				os.Remove(path)
				b.StartTimer()
			}
		})
	}
}

// resumeTimed cold-resumes child c1 from store with a follow-up, timing
// only the follow-up: a new Service and root are set up before the timer
// starts and closed after it stops. The timer is stopped on entry and on
// return.
func resumeTimed(b *testing.B, ctx context.Context, store journal.Store) {
	svc := subagent.New(subagent.WithStore(store), subagent.WithHost(steeredHost{}))
	root := subagenttest.NewAgent("root")
	svc.Attach(root)
	b.StartTimer()
	if _, err := svc.Followup(ctx, root, "c1", text("more"), subagent.FollowupOptions{}); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	svc.Close(ctx)
}
