package retention_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/retention"
	"github.com/jobgen/jobgen/subagent"
)

func say(s string) []subagents.ContentBlock {
	return []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: s}}
}

// newService runs continuable children that answer each turn at once, on
// store; notices to the root lead arrive on got.
func newService(t *testing.T, store journal.Store, got chan<- subagents.Message) (*subagent.Service, *subagent.QueueAgent) {
	t.Helper()
	host := subagent.HostFunc(func(ctx context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
		return subagent.NewQueueAgent(c.ID, in, func(ctx context.Context, msgs []subagents.Message) (string, error) { return "done", nil }), nil
	})
	svc := subagent.New(subagent.WithStore(store), subagent.WithHost(host))
	svc.RegisterProvider(subagent.Continuable("worker", nil))
	lead := subagent.NewQueueAgent("lead", nil, func(ctx context.Context, msgs []subagents.Message) (string, error) {
		for _, m := range msgs {
			got <- m
		}
		return "", nil
	})
	svc.Attach(lead)
	return svc, lead
}

// A settled child is archived with its pointer streams; afterwards a
// follow-up cannot resume it cold: its history is in the archive, and the
// error says so (ErrNotResumable, wrapping journal.ErrArchived).
func TestAColdResumeOfAnArchivedChildSaysItWasArchived(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	got := make(chan subagents.Message, 8)
	svc, lead := newService(t, store, got)
	child, _, err := svc.StartContinuable(ctx, subagent.ContinuableSpec{Provider: "worker", Label: "w", ChildID: "r1", Parent: lead, Prompt: say("go")})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m.Source.Kind != subagents.SourceKindSubagentSettled {
			t.Fatalf("the lead got %s, want the settlement notice", m.Source.Kind)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the child did not settle")
	}
	if err := svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)

	plan, err := retention.Choose(ctx, store, retention.Options{Before: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(plan.Streams(), journal.Stream(child)) || len(plan.Kept) != 0 {
		t.Fatalf("plan: archive %v, keep %v; want the settled child and its pointers", plan.Archive, plan.Kept)
	}
	file, err := journal.Open(filepath.Join(t.TempDir(), "archive.journal"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close(ctx)
	if _, err := store.Archive(ctx, plan.Archive, file); err != nil {
		t.Fatal(err)
	}

	again, lead2 := newService(t, store, got)
	defer again.Close(ctx)
	_, err = again.Followup(ctx, lead2, jobs.SessionID(child), say("more"), subagent.FollowupOptions{})
	if !errors.Is(err, subagent.ErrNotResumable) || !errors.Is(err, journal.ErrArchived) {
		t.Fatalf("a follow-up to the archived child: %v; want ErrNotResumable wrapping journal.ErrArchived", err)
	}
}
