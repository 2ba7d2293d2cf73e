package subagent_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

var crashRounds = flag.Int("subagent.crashrounds", 12, "rounds of TestClaimedMessagesSurviveSIGKILL (make crash-subagent runs more)")

const crashChildEnv = "SUBAGENT_CRASH_CHILD" // the journal path, in the child process

// TestClaimedMessagesSurviveSIGKILL kills a process whose child agent is in
// the middle of a turn, at a random moment after it claimed messages, then
// resumes the child in a fresh process over the same journal file. A
// message whose Inbox.Claimed returned is never delivered again, and every
// message whose acceptance was flushed and that was not claimed is
// redelivered: each round resumes the child and counts both. Each round
// continues the same file.
func TestClaimedMessagesSurviveSIGKILL(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	if testing.Short() {
		t.Skip("kills processes; not in -short")
	}
	seed := rand.Uint64()
	t.Logf("seed %d; -subagent.crashrounds=%d", seed, *crashRounds)
	rng := rand.New(rand.NewPCG(seed, seed))
	path := filepath.Join(t.TempDir(), "agents.journal")
	claimed := map[string]bool{} // every message a child process reported claimed
	flushed := map[string]bool{} // every message whose acceptance was durable
	redelivered, midTurn := 0, 0
	for round := range *crashRounds {
		rep := crashRound(t, path, round, rng)
		for _, id := range rep.claimed {
			claimed[id] = true
		}
		for _, id := range rep.flushed {
			flushed[id] = true
		}
		if rep.midTurn {
			midTurn++
		}
		got, check, claimedOnStream := resumeAfterCrash(t, path)
		for _, id := range got {
			if claimed[id] {
				t.Fatalf("round %d: message %s was claimed before the kill and is delivered again after it", round, id)
			}
		}
		delivered := map[string]bool{}
		for _, id := range got {
			delivered[id] = true
		}
		for id := range flushed {
			if !claimedOnStream[id] && !delivered[id] {
				t.Fatalf("round %d: message %s was flushed and never claimed, and the resume did not redeliver it", round, id)
			}
		}
		redelivered += len(got) - 1
		flushed[check] = true // Close's final flush made the check's own follow-up durable
	}
	t.Logf("%d rounds, %d kills in the middle of a turn, %d messages claimed, %d flushed, %d redelivered unclaimed, 0 claimed twice",
		*crashRounds, midTurn, len(claimed), len(flushed), redelivered)
	if len(claimed) == 0 || midTurn == 0 {
		t.Fatal("no round killed a child in the middle of a turn after a claim: the loop tested nothing")
	}
}

// A crashReport is what one killed process reported before its end.
type crashReport struct {
	claimed, flushed []string
	midTurn          bool // the kill came after a claim and before its turn ended
}

// crashRound runs one child process against path and kills it at a random
// moment after its agent claimed a message.
func crashRound(t *testing.T, path string, round int, rng *rand.Rand) crashReport {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestClaimedMessagesSurviveSIGKILL$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	cmd.ExtraFiles = []*os.File{pw}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	var (
		mu     sync.Mutex
		rep    crashReport
		inTurn bool
		claims = make(chan struct{}, 1024)
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			what, id, ok := strings.Cut(sc.Text(), " ")
			if !ok {
				continue // a line cut by the kill
			}
			mu.Lock()
			switch what {
			case "claimed":
				rep.claimed = append(rep.claimed, id)
				inTurn = true
				claims <- struct{}{}
			case "flushed":
				rep.flushed = append(rep.flushed, id)
			case "ended":
				inTurn = false
			}
			mu.Unlock()
		}
	}()
	for range 1 + rng.IntN(4) {
		select {
		case <-claims:
		case <-time.After(20 * time.Second):
			cmd.Process.Signal(syscall.SIGQUIT) // its goroutines, to stderr
			time.Sleep(time.Second)
			cmd.Process.Kill()
			t.Fatalf("round %d: the child process claimed nothing", round)
		}
	}
	time.Sleep(time.Duration(rng.Int64N(int64(4 * time.Millisecond))))
	mu.Lock()
	rep.midTurn = inTurn
	cmd.Process.Kill()
	mu.Unlock()
	cmd.Wait()
	<-done
	pr.Close()
	mu.Lock()
	defer mu.Unlock()
	return rep
}

// resumeAfterCrash opens the journal a killed process left, resumes child
// "c" with a follow-up through an agent that claims nothing, and returns
// the ids of what the resume delivered (the follow-up's last), the
// follow-up's id, and the messages with a claimed fact on the stream (a
// kill can land between a claim and its report). Close keeps every
// delivered message for the next round.
func resumeAfterCrash(t *testing.T, path string) ([]string, string, map[string]bool) {
	t.Helper()
	ctx := context.Background()
	store, err := journal.Open(path, journal.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatalf("reopen after the kill: %v", err)
	}
	defer store.Close(ctx)
	claimedOnStream := map[string]bool{}
	for rec, err := range store.ReadStream(ctx, "c", 0) {
		if err != nil {
			t.Fatal(err)
		}
		if f, err := subagents.DecodeFact(rec.Payload); err == nil {
			if c, ok := f.(subagents.SubagentMessageClaimed); ok {
				claimedOnStream[c.Message.String()] = true
			}
		}
	}
	host := subagenttest.NewHost()
	svc := subagent.New(subagent.WithStore(store), subagent.WithHost(host))
	root := subagenttest.NewAgent("root")
	if _, err := svc.Attach(root); err != nil {
		t.Fatal(err)
	}
	check, err := svc.Followup(ctx, root, "c", text("check"), subagent.FollowupOptions{})
	if err != nil {
		t.Fatalf("resume after the kill: %v", err)
	}
	var got []string
	for _, m := range host.Agent("c").Delivered() {
		got = append(got, m.ID.String())
	}
	if err := svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return got, check.String(), claimedOnStream
}

// crashChild runs child "c" of an attached root over the journal at path,
// one follow-up after another, each resuming it cold, until it is killed.
// Its agents claim what they are given, report each claim on file
// descriptor 3 once Claimed returned, work a few milliseconds and end the
// turn; each follow-up is reported once its acceptance is flushed.
func crashChild(path string) {
	report := &lineWriter{w: os.NewFile(3, "report")}
	ctx := context.Background()
	store, err := journal.Open(path, journal.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(2)
	}
	svc := subagent.New(subagent.WithStore(store), subagent.WithHost(&crashHost{report: report}))
	if _, err := svc.RegisterProvider(&subagenttest.Provider{ProviderName: "fork"}); err != nil {
		os.Exit(3)
	}
	root := subagenttest.NewAgent("root")
	if _, err := svc.Attach(root); err != nil {
		os.Exit(3)
	}
	deadline := time.Now().Add(20 * time.Second) // in case the parent is gone
	for i := 0; time.Now().Before(deadline); i++ {
		var id subagents.MessageID
		var err error
		if i == 0 && !hasHistory(ctx, store, "c") {
			_, id, err = svc.StartContinuable(ctx, subagent.ContinuableSpec{Provider: "fork", Label: "crash", ChildID: "c", Parent: root, Prompt: text("go")})
		} else {
			id, err = svc.Followup(ctx, root, "c", text(fmt.Sprintf("more %d", i)), subagent.FollowupOptions{})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(4)
		}
		if err := store.Flush(ctx); err != nil {
			os.Exit(5)
		}
		report.line("flushed " + id.String())
		for svc.State("c") != subagent.Absent {
			time.Sleep(100 * time.Microsecond)
		}
	}
	os.Exit(0)
}

func hasHistory(ctx context.Context, store journal.Store, id jobs.SessionID) bool {
	for _, err := range store.ReadStream(ctx, journal.Stream(id), 0) {
		return err == nil
	}
	return false
}

// A lineWriter writes whole lines, one write each, from any goroutine.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) line(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, s+"\n")
}

// crashHost makes agents that run one turn per waking delivery: claim
// everything queued, report the claims, work, end the turn.
type crashHost struct{ report *lineWriter }

func (h *crashHost) Materialize(ctx context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
	idle := make(chan struct{})
	close(idle)
	return &crashAgent{id: c.ID, inbox: in, report: h.report, idle: idle}, nil
}

type crashAgent struct {
	id     jobs.SessionID
	inbox  subagent.Inbox
	report *lineWriter

	mu      sync.Mutex
	queue   []subagents.MessageID
	running bool
	idle    chan struct{}
}

func (a *crashAgent) ID() jobs.SessionID { return a.id }

func (a *crashAgent) Deliver(m subagents.Message, wake bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queue = append(a.queue, m.ID)
	if wake && !a.running {
		a.running = true
		a.idle = make(chan struct{})
		go a.turn()
	}
	return nil
}

// turn runs until the queue is empty, so a waking message delivered while
// it runs is taken too.
func (a *crashAgent) turn() {
	for {
		a.mu.Lock()
		ids := a.queue
		a.queue = nil
		if len(ids) == 0 {
			a.running = false
			close(a.idle)
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
		a.inbox.Claimed(ids...)
		for _, id := range ids {
			a.report.line("claimed " + id.String())
		}
		time.Sleep(3 * time.Millisecond) // the model at work
		a.report.line("ended -")
		a.inbox.TurnEnded(subagents.StopReasonCompleted, "done")
	}
}

func (a *crashAgent) Cancel(error, bool) {}

func (a *crashAgent) Idle() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.idle
}

func (a *crashAgent) Dispose(context.Context) error { return nil }
