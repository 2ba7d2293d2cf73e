// Command deployer is a runtime built on jobgen with a vocabulary of its
// own: it runs one job of its own kind, deploy, in jobgen's registry, and
// records its own facts, deploy/requested and deploy/approved, in the same
// journal as the registry's job facts. The approval comes over its own wire,
// the route Approve its spec declares (deploy.Server, served by
// deploy.NewHandler), called through the client jobgen generates from the
// same declaration: deploy.Client in Go, or deployer_vocab.deploy_client in
// Python, for an approver outside (-approver listen).
//
//	go run ./cmd/deployer -journal deploy.journal
//	jobgen journal check deploy.journal   # run here: jobgen.yaml names the spec
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"example.com/deployer/generated/deploy"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/httproute"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

// Kind is the kind of the jobs this runtime runs.
const Kind = "deploy"

const owner jobs.SessionID = "release-bot"

func main() {
	path := flag.String("journal", "deploy.journal", "the journal file to write")
	approver := flag.String("approver", "go", "who approves the release: go, the generated Go client; listen, whoever calls the printed URL")
	flag.Parse()
	if err := run(context.Background(), *path, *approver); err != nil {
		fmt.Fprintln(os.Stderr, "deployer:", err)
		os.Exit(1)
	}
}

// run ships one release: the request, the deploy job, the approval.
func run(ctx context.Context, path, approver string) error {
	store, err := journal.Open(path)
	if err != nil {
		return err
	}
	reg := registry.New(registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
	facts := journal.NewRecorder(store, deploy.EncodeFact, func(deploy.Fact) journal.Stream { return journal.Stream(owner) })

	snap, err := reg.Start(ctx, jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: Kind, Label: "api to production", Owner: owner},
		Run: func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			go func() {
				job.Append("rolling out api\n", jobs.AppendOptions{})
				job.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "api is live"}, nil)
			}()
			return jobs.Hooks{Cancel: func(string) error { return nil }}, nil
		},
	})
	if err != nil {
		return err
	}
	release := deploy.NewReleaseID()
	if err := facts.Record(deploy.DeployRequested{Release: release, Service: "api", Job: snap.ID, At: time.Now().UnixMilli()}); err != nil {
		return err
	}
	done, _, err := reg.Wait(ctx, owner, snap.ID, 10*time.Second)
	if err != nil {
		return err
	}
	a := &approvals{reg: reg, facts: facts, release: release, job: snap.ID, decided: make(chan struct{})}
	if approver == "listen" {
		err = awaitApproval(ctx, a)
	} else {
		err = approveOverTheWire(ctx, a, deploy.Approval{Approver: owner, Verdict: deploy.VerdictApproved, Note: "green canary"})
	}
	if err != nil {
		return err
	}
	if err := reg.Close(ctx); err != nil {
		return err
	}
	if err := store.Close(ctx); err != nil {
		return err
	}
	fmt.Printf("%s %s: %s; facts in %s\n", done.Name, done.Status, done.Detail, path)
	return nil
}

// approvals serves the deployer's wire: the decisions on the one release
// this run requested.
type approvals struct {
	reg     *registry.Registry
	facts   *journal.Recorder[deploy.Fact]
	release deploy.ReleaseID
	job     jobs.JobID
	decided chan struct{} // closed by the first decision
	once    sync.Once
}

// A route that the spec adds and approvals neither serves nor declines
// does not compile.
var _ deploy.Server = (*approvals)(nil)

// Approve implements deploy.Server: the decision becomes the release's
// deploy/approved fact, with the deploy job's status when it came.
func (a *approvals) Approve(ctx context.Context, req deploy.ApproveRequest) (deploy.Approval, error) {
	if req.Release != a.release {
		return deploy.Approval{}, httproute.Refuse(http.StatusNotFound, "no such release")
	}
	snap, err := a.reg.Get(owner, a.job)
	if err != nil {
		return deploy.Approval{}, err
	}
	fact := deploy.DeployApproved{Release: a.release, Approval: req.Body, Status: snap.Status, At: time.Now().UnixMilli()}
	if err := a.facts.Record(fact); err != nil {
		return deploy.Approval{}, err
	}
	a.once.Do(func() { close(a.decided) })
	return req.Body, nil
}

// serve serves a's wire on a loopback listener until stop is called, and
// returns its URL.
func serve(ctx context.Context, a *approvals) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: deploy.NewHandler(a), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/", func() { srv.Shutdown(ctx) }, nil
}

// approveOverTheWire serves a and posts the decision to it through the
// generated client, as an approver's tool would.
func approveOverTheWire(ctx context.Context, a *approvals, decision deploy.Approval) error {
	url, stop, err := serve(ctx, a)
	if err != nil {
		return err
	}
	defer stop()
	c, err := deploy.NewClient(url)
	if err != nil {
		return err
	}
	var refused *httproute.WireError
	if _, err := c.Approve(ctx, deploy.ApproveRequest{Release: deploy.NewReleaseID(), Body: decision}); !errors.As(err, &refused) || refused.Message != "no such release" {
		return fmt.Errorf("approve an unknown release: %v, want its refusal", err)
	}
	if _, err := c.Approve(ctx, deploy.ApproveRequest{Release: a.release, Body: decision}); err != nil {
		return fmt.Errorf("approve: %w", err)
	}
	return nil
}

// awaitApproval serves a, prints where and which release to approve, and
// waits for the first decision.
func awaitApproval(ctx context.Context, a *approvals) error {
	url, stop, err := serve(ctx, a)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Printf("approve %s at %s\n", a.release, url)
	select {
	case <-a.decided:
		return nil
	case <-time.After(time.Minute):
		return errors.New("no approver came within a minute")
	}
}
