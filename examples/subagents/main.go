// Command subagents shows the continuation manager at work with a scripted
// agent tree: a lead agent starts a continuable child, the child reports
// halfway and settles, the process restarts (a new Service over the same
// journal file, reopened), a follow-up resumes the child cold from its
// stream, and the child's history is printed.
//
//	go run ./examples/subagents
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	dir, err := os.MkdirTemp("", "subagents-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	if err := run(ctx, dir, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "subagents:", err)
		os.Exit(1)
	}
}

// run is the whole demo, writing what happens to out and the journal to dir.
func run(ctx context.Context, dir string, out io.Writer) error {
	path := filepath.Join(dir, "agents.journal")
	out = &syncWriter{w: out} // the agents' turns print from their own goroutines

	fmt.Fprintln(out, "== process 1")
	p1, err := startProcess(path, out)
	if err != nil {
		return err
	}
	child, first, err := p1.svc.StartContinuable(ctx, subagent.ContinuableSpec{
		Provider: "researcher", Label: "find the flaky test's cause", ChildID: "researcher-1",
		Parent: p1.lead, Prompt: text("Find why TestPump flakes."),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "lead started %s; its prompt is message %s\n", child, short(first))
	if err := p1.lead.waitFor(ctx, 2); err != nil { // the report and the settlement notice
		return err
	}
	if err := p1.stop(ctx); err != nil {
		return err
	}

	fmt.Fprintf(out, "\n== process 2 (restarted over %s)\n", filepath.Base(path))
	p2, err := startProcess(path, out)
	if err != nil {
		return err
	}
	if _, err := p2.svc.Followup(ctx, p2.lead, child, text("Write the fix."), subagent.FollowupOptions{}); err != nil {
		return err
	}
	if err := p2.lead.waitFor(ctx, 1); err != nil {
		return err
	}
	fmt.Fprintf(out, "\n== the history of %s, read back from %s\n", child, filepath.Base(path))
	if err := printHistory(ctx, p2.store, child, out); err != nil {
		return err
	}
	return p2.stop(ctx)
}

// A process is one run of the runtime: the journal, a Service, its host
// and the lead.
type process struct {
	svc   *subagent.Service
	store *journal.FileStore
	lead  *leadAgent
}

func startProcess(path string, out io.Writer) (*process, error) {
	store, err := journal.Open(path, journal.WithLogger(slog.Default())) // repairs to stderr
	if err != nil {
		return nil, err
	}
	h := &host{out: out}
	svc := subagent.New(subagent.WithStore(store), subagent.WithHost(h))
	h.svc = svc
	if _, err := svc.RegisterProvider(researcher{}); err != nil {
		return nil, err
	}
	lead := &leadAgent{out: out, got: make(chan struct{}, 16)}
	if _, err := svc.Attach(lead); err != nil {
		return nil, err
	}
	return &process{svc: svc, store: store, lead: lead}, nil
}

// stop shuts the process down in order: the manager (every child torn down,
// its residency's end recorded and flushed), then the journal.
func (p *process) stop(ctx context.Context) error {
	if err := p.svc.Close(ctx); err != nil {
		return err
	}
	return p.store.Close(ctx)
}

// researcher is the provider: it seeds nothing and runs no one-shot runs.
type researcher struct{}

func (researcher) Name() string                        { return "researcher" }
func (researcher) Capabilities() subagent.Capabilities { return subagent.Capabilities{} }
func (researcher) Start(context.Context, subagent.ResolvedStartRequest) (subagent.Run, error) {
	return nil, fmt.Errorf("researcher runs continuable children only")
}
func (researcher) PrepareContinuable(context.Context, subagent.ContinuableCreateRequest) (subagent.ContinuableCreateSpec, error) {
	return subagent.ContinuableCreateSpec{}, nil
}

// host is the runtime's Host: each residency gets a scripted agent.
type host struct {
	svc *subagent.Service
	out io.Writer
}

func (h *host) Materialize(ctx context.Context, child subagent.Child, inbox subagent.Inbox) (subagent.Agent, error) {
	if child.Resumed {
		fmt.Fprintf(h.out, "host: resuming %s cold from %d records on its stream\n", child.ID, len(child.History))
	} else {
		fmt.Fprintf(h.out, "host: creating %s (parent %s, depth %d)\n", child.ID, child.Header.ParentSession, child.Header.DelegationDepth)
	}
	idle := make(chan struct{})
	close(idle)
	return &childAgent{id: child.ID, inbox: inbox, svc: h.svc, out: h.out, idle: idle}, nil
}

// childAgent is one residency of the researcher: a turn per waking
// delivery, scripted by what it is asked.
type childAgent struct {
	id    jobs.SessionID
	inbox subagent.Inbox
	svc   *subagent.Service
	out   io.Writer

	mu      sync.Mutex
	queue   []subagents.Message
	running bool
	idle    chan struct{}
}

func (a *childAgent) ID() jobs.SessionID { return a.id }

func (a *childAgent) Deliver(msg subagents.Message, wake bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queue = append(a.queue, msg)
	if wake && !a.running {
		a.running = true
		a.idle = make(chan struct{})
		go a.turn()
	}
	return nil
}

// turn claims what waits, "thinks", and ends; a task about a cause gets a
// report to the parent halfway.
func (a *childAgent) turn() {
	a.mu.Lock()
	msgs := a.queue
	a.queue = nil
	a.mu.Unlock()
	var asked []string
	for _, m := range msgs {
		a.inbox.Claimed(m.ID)
		asked = append(asked, m.Content[0].Text)
		fmt.Fprintf(a.out, "%s: claimed %s %q\n", a.id, short(m.ID), m.Content[0].Text)
	}
	closing := "The fix: the pump now resets one timer instead of making one per round."
	if strings.Contains(strings.Join(asked, " "), "Find why") {
		if _, err := a.svc.ReportFrom(context.Background(), a, text("Halfway: the pump makes a timer every round."), subagent.ReportOptions{}); err != nil {
			fmt.Fprintf(a.out, "%s: report failed: %v\n", a.id, err)
		}
		closing = "Cause: a timer per round starves the scheduler."
	}
	a.inbox.TurnEnded(subagents.StopReasonCompleted, closing)
	a.mu.Lock()
	a.running = false
	close(a.idle)
	a.mu.Unlock()
}

func (a *childAgent) Cancel(cause error, keepInbox bool) {}

func (a *childAgent) Idle() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.idle
}

func (a *childAgent) Dispose(ctx context.Context) error {
	fmt.Fprintf(a.out, "host: %s disposed\n", a.id)
	return nil
}

// leadAgent is the attached root: it prints what reaches it.
type leadAgent struct {
	out io.Writer
	got chan struct{}
}

func (l *leadAgent) ID() jobs.SessionID { return "lead" }
func (l *leadAgent) Deliver(msg subagents.Message, wake bool) error {
	body := msg.Content[0].Text
	if len(msg.Content) > 1 {
		body += " " + msg.Content[1].Text
	}
	fmt.Fprintf(l.out, "lead got a %s from %s: %s\n", msg.Source.Kind, msg.Source.Sender, strings.ReplaceAll(body, "\n", " | "))
	l.got <- struct{}{}
	return nil
}
func (l *leadAgent) Cancel(error, bool)                {}
func (l *leadAgent) Idle() <-chan struct{}             { return nil }
func (l *leadAgent) Dispose(ctx context.Context) error { return nil }

func (l *leadAgent) waitFor(ctx context.Context, n int) error {
	for range n {
		select {
		case <-l.got:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// printHistory prints the child's stream, one fact a line.
func printHistory(ctx context.Context, store journal.Store, child jobs.SessionID, out io.Writer) error {
	for rec, err := range store.ReadStream(ctx, journal.Stream(child), 0) {
		if err != nil {
			return err
		}
		f, err := subagents.DecodeFact(rec.Payload)
		if err != nil {
			return err
		}
		var what string
		switch f := f.(type) {
		case subagents.SubagentCreated:
			what = fmt.Sprintf("parent %s, depth %d, %s descriptor v%d %q", f.Header.ParentSession, f.Header.DelegationDepth, f.Descriptor.Mode, f.Descriptor.Version, f.Descriptor.Label)
		case subagents.SubagentResidencyStarted:
			what = "run " + short(f.Run)
			if f.Resumed {
				what += " (cold resume)"
			}
		case subagents.SubagentMessageAccepted:
			what = fmt.Sprintf("%s from %s: %q", short(f.Message), f.Source.Kind, f.Content[0].Text)
		case subagents.SubagentMessageClaimed:
			what = fmt.Sprintf("%s by run %s", short(f.Message), short(f.Run))
		case subagents.SubagentMessageDiscarded:
			what = fmt.Sprintf("%s: %s", short(f.Message), f.Why)
		case subagents.SubagentResidencyEnded:
			what = fmt.Sprintf("run %s %s: %q", short(f.Run), f.StopReason, f.LastMessage)
		}
		fmt.Fprintf(out, "%3d %-27s %s\n", rec.Seq, f.FactType(), what)
	}
	return nil
}

func text(s string) []subagents.ContentBlock {
	return []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: s}}
}

// short is the first block of a UUID, enough to tell messages apart here.
func short(id fmt.Stringer) string { return id.String()[:8] }

// A syncWriter serializes writes to w, so lines printed by the demo and by
// the agents' turns never interleave or race.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
