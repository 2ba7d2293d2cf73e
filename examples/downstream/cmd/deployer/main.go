// Command deployer is a runtime built on jobgen with a vocabulary of its
// own: it runs one job of its own kind, deploy, in jobgen's registry, and
// records its own facts, deploy/requested and deploy/approved, in the same
// journal as the registry's job facts. The approval comes over its own wire,
// the route Approve its spec declares (deploy.Server, served by
// deploy.NewHandler).
//
//	go run ./cmd/deployer -journal deploy.journal
//	jobgen journal check deploy.journal   # run here: jobgen.yaml names the spec
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
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
	flag.Parse()
	if err := run(context.Background(), *path); err != nil {
		fmt.Fprintln(os.Stderr, "deployer:", err)
		os.Exit(1)
	}
}

// run ships one release: the request, the deploy job, the approval.
func run(ctx context.Context, path string) error {
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
	if err := approveOverTheWire(ctx, &approvals{reg: reg, facts: facts, release: release, job: snap.ID},
		deploy.Approval{Approver: owner, Verdict: deploy.VerdictApproved, Note: "green canary"}); err != nil {
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
	return req.Body, nil
}

// approveOverTheWire serves a on a loopback listener and posts the decision
// to it, as an approver's tool would.
func approveOverTheWire(ctx context.Context, a *approvals, decision deploy.Approval) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: deploy.NewHandler(a, httproute.Options{}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Shutdown(ctx)
	body, err := json.Marshal(decision)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String() + "/api/releases/" + a.release.String() + "/approvals"
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		var refused deploy.Refusal
		json.NewDecoder(res.Body).Decode(&refused)
		return fmt.Errorf("approve: %s: %s", res.Status, refused.Error)
	}
	return nil
}
