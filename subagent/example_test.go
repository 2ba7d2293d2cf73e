package subagent_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
)

// say is a message of one text block.
func say(s string) []subagents.ContentBlock {
	return []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: s}}
}

// firstLine is the first line of a message's text.
func firstLine(m subagents.Message) string {
	line, _, _ := strings.Cut(m.Content[0].Text, "\n")
	return line
}

// A lead is an attached root built on the kit: each turn prints what it got
// and tells the example it is done.
func lead(id jobs.SessionID, got chan<- string) *subagent.QueueAgent {
	return subagent.NewQueueAgent(id, nil, func(ctx context.Context, msgs []subagents.Message) (string, error) {
		for _, m := range msgs {
			got <- fmt.Sprintf("%s got %s: %s", id, m.Source.Kind, firstLine(m))
		}
		return "", nil
	})
}

// A minimal runtime: the agent of every child is a QueueAgent whose turn
// is the model (here a function of the prompt), and the provider only
// prepares continuable children.
func ExampleService_StartContinuable() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	store, _ := journal.Open(filepath.Join(dir, "agents.journal"))
	defer store.Close(ctx)

	model := func(ctx context.Context, msgs []subagents.Message) (string, error) {
		return "read " + msgs[len(msgs)-1].Content[0].Text, nil
	}
	host := subagent.HostFunc(func(ctx context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
		return subagent.NewQueueAgent(c.ID, in, model), nil
	})
	svc := subagent.New(subagent.WithStore(store), subagent.WithHost(host))
	defer svc.Close(ctx)
	svc.RegisterProvider(subagent.Continuable("researcher", nil))

	got := make(chan string, 8)
	root := lead("lead", got)
	svc.Attach(root)
	child, _, err := svc.StartContinuable(ctx, subagent.ContinuableSpec{
		Provider: "researcher", Label: "find the cause", ChildID: "r1", Parent: root, Prompt: say("the flaky test"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-got) // the child settled after its turn
	if _, err := svc.Followup(ctx, root, child, say("the fix"), subagent.FollowupOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-got) // resumed cold from its stream, it settled again
	// Output:
	// lead got subagentSettled: Background subagent r1 finished and will do no further work unless you send it more.
	// lead got subagentSettled: Background subagent r1 finished and will do no further work unless you send it more.
}

// A child reports to its parent halfway through its turn.
func ExampleService_ReportFrom() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	store, _ := journal.Open(filepath.Join(dir, "agents.journal"))
	defer store.Close(ctx)

	var svc *subagent.Service
	host := subagent.HostFunc(func(ctx context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
		var self *subagent.QueueAgent
		self = subagent.NewQueueAgent(c.ID, in, func(ctx context.Context, msgs []subagents.Message) (string, error) {
			_, err := svc.ReportFrom(ctx, self, say("halfway: the pump makes a timer per round"), subagent.ReportOptions{Delivery: subagents.DeliveryQuiet})
			return "done", err
		})
		return self, nil
	})
	svc = subagent.New(subagent.WithStore(store), subagent.WithHost(host))
	defer svc.Close(ctx)
	svc.RegisterProvider(subagent.Continuable("researcher", nil))

	got := make(chan string, 8)
	root := lead("lead", got)
	svc.Attach(root)
	svc.StartContinuable(ctx, subagent.ContinuableSpec{Provider: "researcher", Label: "x", ChildID: "r1", Parent: root, Prompt: say("go")})
	// the quiet report waits in the lead's inbox; the settlement notice wakes it
	fmt.Println(<-got)
	fmt.Println(<-got)
	// Output:
	// lead got subagentReport: Background subagent r1 reported:
	// lead got subagentSettled: Background subagent r1 finished and will do no further work unless you send it more.
}

// A one-shot run, owned by its caller.
func ExampleService_Start() {
	ctx := context.Background()
	svc := subagent.New()
	defer svc.Close(ctx)
	svc.RegisterProvider(oneShot{})
	run, err := svc.Start(ctx, "summarizer", subagent.StartRequest{Label: "summarize", Prompt: say("a long log")})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer run.Dispose(ctx)
	res, err := run.Result(ctx)
	fmt.Println(res.StopReason, res.Output, err)
	// Output: completed summary of a long log <nil>
}

// oneShot is a provider of one-shot runs that finish at once.
type oneShot struct{}

func (oneShot) Name() string                        { return "summarizer" }
func (oneShot) Capabilities() subagent.Capabilities { return subagent.Capabilities{} }
func (oneShot) Start(ctx context.Context, req subagent.ResolvedStartRequest) (subagent.Run, error) {
	return doneRun{subagent.Result{StopReason: subagents.StopReasonCompleted, Output: "summary of " + req.Prompt[0].Text}}, nil
}

type doneRun struct{ res subagent.Result }

func (doneRun) ID() jobs.SessionID                                { return "run-1" }
func (doneRun) Agent() subagent.Agent                             { return nil }
func (r doneRun) Result(context.Context) (subagent.Result, error) { return r.res, nil }
func (doneRun) Dispose(context.Context) error                     { return nil }

// A restart loses nothing that was flushed: the follow-up a child had not
// taken when the process stopped is redelivered, once, to its next
// residency, before the follow-up that resumes it.
func Example_restart() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example-restart-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "agents.journal")
	quiet := slog.New(slog.DiscardHandler)

	// process is one run of the runtime: its child's turns print what they
	// take; with hold, a turn waits until it is cancelled.
	process := func(hold bool) (*subagent.Service, *journal.FileStore, *subagent.QueueAgent, chan string) {
		store, _ := journal.Open(path, journal.WithLogger(quiet))
		took := make(chan string, 8)
		host := subagent.HostFunc(func(ctx context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
			return subagent.NewQueueAgent(c.ID, in, func(ctx context.Context, msgs []subagents.Message) (string, error) {
				for _, m := range msgs {
					took <- "took " + m.Content[0].Text
				}
				if hold {
					<-ctx.Done()
				}
				return "", ctx.Err()
			}), nil
		})
		svc := subagent.New(subagent.WithStore(store), subagent.WithHost(host))
		svc.RegisterProvider(subagent.Continuable("worker", nil))
		root := subagent.NewQueueAgent("lead", nil, func(context.Context, []subagents.Message) (string, error) { return "", nil })
		svc.Attach(root)
		return svc, store, root, took
	}

	svc, store, root, took := process(true)
	svc.StartContinuable(ctx, subagent.ContinuableSpec{Provider: "worker", Label: "x", ChildID: "w1", Parent: root, Prompt: say("task one")})
	fmt.Println(<-took)                                                        // the turn holds the task
	svc.Followup(ctx, root, "w1", say("task two"), subagent.FollowupOptions{}) // waits for the next turn
	svc.Close(ctx)                                                             // the process stops: task two is kept
	store.Close(ctx)

	svc, store, root, took = process(false)
	svc.Followup(ctx, root, "w1", say("task three"), subagent.FollowupOptions{})
	fmt.Println(<-took)
	fmt.Println(<-took)
	svc.Close(ctx)
	store.Close(ctx)
	// Output:
	// took task one
	// took task two
	// took task three
}
