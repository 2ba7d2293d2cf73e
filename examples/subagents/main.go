// Command subagents shows the continuation manager at work with a scripted
// agent tree: a lead agent starts a continuable child, the child reports
// halfway and settles, the process restarts (a new Service over the same
// journal file, reopened), a follow-up resumes the child cold from its
// last checkpoint, and the child's history is printed.
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
	"github.com/jobgen/jobgen/internal/demo"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
)

func main() {
	demo.Main("subagents", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		dir, err := os.MkdirTemp("", "subagents-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		return run(ctx, dir, os.Stdout)
	})
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
		Parent: p1.lead.QueueAgent, Prompt: text("Find why TestPump flakes."),
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
	if _, err := p2.svc.Followup(ctx, p2.lead.QueueAgent, child, text("Write the fix."), subagent.FollowupOptions{}); err != nil {
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

// A process is one run of the runtime: the journal, a Service and the lead.
type process struct {
	svc   *subagent.Service
	store *journal.FileStore
	lead  *lead
}

func startProcess(path string, out io.Writer) (*process, error) {
	store, err := journal.Open(path, journal.WithLogger(slog.Default())) // repairs to stderr
	if err != nil {
		return nil, err
	}
	p := &process{store: store, lead: newLead(out)}
	p.svc = subagent.New(subagent.WithStore(store), subagent.WithHost(host(&p.svc, out)))
	if _, err := p.svc.RegisterProvider(provider); err != nil {
		return nil, err
	}
	if _, err := p.svc.Attach(p.lead.QueueAgent); err != nil {
		return nil, err
	}
	return p, nil
}

// stop shuts the process down in order: the manager (every child torn down,
// its residency's end recorded and flushed), then the journal.
func (p *process) stop(ctx context.Context) error {
	if err := p.svc.Close(ctx); err != nil {
		return err
	}
	return p.store.Close(ctx)
}

// runtime: the agent and the provider — all a runtime writes before its model.

// provider prepares continuable children and nothing else; it seeds none.
var provider = subagent.Continuable("researcher", nil)

// host makes each residency of a child a QueueAgent whose turns are the
// researcher's.
func host(svc **subagent.Service, out io.Writer) subagent.Host {
	return subagent.HostFunc(func(ctx context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
		if c.Resumed {
			fmt.Fprintf(out, "host: resuming %s cold from its stream\n", c.ID)
		} else {
			fmt.Fprintf(out, "host: creating %s (parent %s, depth %d)\n", c.ID, c.Header.ParentSession, c.Header.DelegationDepth)
		}
		var self *subagent.QueueAgent
		self = subagent.NewQueueAgent(c.ID, in, func(ctx context.Context, msgs []subagents.Message) (string, error) {
			return research(ctx, *svc, self, msgs, out)
		})
		return self, nil
	})
}

// end of the runtime.

// research is the "model": it reads what it was asked, and a task about a
// cause gets a report to the parent halfway.
func research(ctx context.Context, svc *subagent.Service, self subagent.Agent, msgs []subagents.Message, out io.Writer) (string, error) {
	var asked []string
	for _, m := range msgs {
		asked = append(asked, m.Content[0].Text)
		fmt.Fprintf(out, "%s: took %s %q\n", self.ID(), short(m.ID), m.Content[0].Text)
	}
	if !strings.Contains(strings.Join(asked, " "), "Find why") {
		return "The fix: the pump now resets one timer instead of making one per round.", nil
	}
	if _, err := svc.ReportFrom(ctx, self, text("Halfway: the pump makes a timer every round."), subagent.ReportOptions{}); err != nil {
		return "", err
	}
	return "Cause: a timer per round starves the scheduler.", nil
}

// A lead is the attached root: a QueueAgent whose turns print what reached it.
type lead struct {
	*subagent.QueueAgent
	got chan struct{}
}

func newLead(out io.Writer) *lead {
	l := &lead{got: make(chan struct{}, 16)}
	l.QueueAgent = subagent.NewQueueAgent("lead", nil, func(ctx context.Context, msgs []subagents.Message) (string, error) {
		for _, m := range msgs {
			fmt.Fprintf(out, "lead got a %s from %s: %s\n", m.Source.Kind, m.Source.Sender, strings.ReplaceAll(m.Content[0].Text, "\n", " | "))
			l.got <- struct{}{}
		}
		return "", nil
	})
	return l
}

func (l *lead) waitFor(ctx context.Context, n int) error {
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
		case subagents.SubagentCheckpoint:
			what = fmt.Sprintf("#%d: %d waiting; a resume reads from here", f.Index, len(f.Waiting))
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
