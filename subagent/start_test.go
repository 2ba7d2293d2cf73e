package subagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// A fakeRun ends with its result when its context ends or at once.
type fakeRun struct {
	ctx        context.Context
	res        subagent.Result
	resErr     error
	disposeErr error
	waitCancel bool
	disposed   bool
}

func (r *fakeRun) ID() jobs.SessionID    { return "run" }
func (r *fakeRun) Agent() subagent.Agent { return nil }
func (r *fakeRun) Result(ctx context.Context) (subagent.Result, error) {
	if r.waitCancel {
		<-r.ctx.Done()
	}
	return r.res, r.resErr
}
func (r *fakeRun) Dispose(context.Context) error { r.disposed = true; return r.disposeErr }

func TestStartChecksCapabilitiesInOrderAndResolvesTheDescriptor(t *testing.T) {
	svc := subagent.New()
	prov := &subagenttest.Provider{ProviderName: "p", Caps: subagent.Capabilities{Persona: true}}
	prov.StartFunc = func(ctx context.Context, req subagent.ResolvedStartRequest) (subagent.Run, error) {
		return &fakeRun{ctx: ctx}, nil
	}
	svc.RegisterProvider(prov)
	depth := 2
	for _, c := range []struct {
		req  subagent.StartRequest
		want string
	}{
		{subagent.StartRequest{OutputSchema: json.RawMessage(`{}`), MaxDepth: &depth}, "outputSchema"},
		{subagent.StartRequest{MaxDepth: &depth, ToolFilter: &subagents.ToolFilter{}}, "depthLimit"},
		{subagent.StartRequest{ToolFilter: &subagents.ToolFilter{}}, "toolFilter"},
	} {
		_, err := svc.Start(context.Background(), "p", c.req)
		if !errors.Is(err, subagent.ErrUnsupportedCapability) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want unsupported %s", c.req, err, c.want)
		}
	}
	if _, err := svc.Start(context.Background(), "nope", subagent.StartRequest{}); !errors.Is(err, subagent.ErrNoProvider) {
		t.Errorf("unknown provider: %v", err)
	}
	if _, err := svc.Start(context.Background(), "p", subagent.StartRequest{Label: "look", Persona: "critic"}); err != nil {
		t.Fatal(err)
	}
	got := prov.Started()
	if len(got) != 1 || got[0].Descriptor != (subagents.Descriptor{Version: 2, Mode: subagents.DescriptorModeOneShot, Provider: "p", Label: "look"}) {
		t.Fatalf("resolved %+v", got)
	}
}

func TestStartJobMapsTheRunsOutcome(t *testing.T) {
	for _, c := range []struct {
		name       string
		run        fakeRun
		kill       bool
		wantStatus jobs.JobStatus
		wantDetail string
		wantOutput string
	}{
		{"completed", fakeRun{res: subagent.Result{StopReason: subagents.StopReasonCompleted, Output: "42"}}, false, jobs.JobStatusCompleted, "", "42"},
		{"aborted", fakeRun{res: subagent.Result{StopReason: subagents.StopReasonAborted}}, false, jobs.JobStatusKilled, "", ""},
		{"max tokens with diagnostic", fakeRun{res: subagent.Result{StopReason: subagents.StopReasonMaxTokens, Diagnostic: "context full"}}, false, jobs.JobStatusFailed, "maxTokens; diagnostic: context full", ""},
		{"result error", fakeRun{resErr: errors.New("boom")}, false, jobs.JobStatusFailed, "Error: boom", ""},
		{"dispose failure", fakeRun{res: subagent.Result{StopReason: subagents.StopReasonRefusal}, disposeErr: errors.New("stuck")}, false, jobs.JobStatusFailed, "refusal; dispose failed: stuck", ""},
		{"killed", fakeRun{res: subagent.Result{StopReason: subagents.StopReasonAborted}, waitCancel: true}, true, jobs.JobStatusKilled, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := registry.New()
			defer reg.Close(context.Background())
			svc := subagent.New(subagent.WithRegistry(reg))
			run := c.run
			prov := &subagenttest.Provider{ProviderName: "p", StartFunc: func(ctx context.Context, req subagent.ResolvedStartRequest) (subagent.Run, error) {
				run.ctx = ctx
				return &run, nil
			}}
			svc.RegisterProvider(prov)
			parent := subagenttest.NewAgent("owner")
			snap, err := svc.StartJob(context.Background(), "p", subagent.StartRequest{Label: "look", Parent: parent})
			if err != nil {
				t.Fatal(err)
			}
			if snap.Kind != subagent.JobKind || snap.Owner != "owner" {
				t.Fatalf("job %+v", snap)
			}
			if c.kill {
				if _, err := reg.Kill("owner", snap.ID, "user asked"); err != nil {
					t.Fatal(err)
				}
			}
			got, ok, err := reg.Wait(context.Background(), "owner", snap.ID, 5*time.Second)
			if err != nil || !ok {
				t.Fatalf("wait: %v %v", ok, err)
			}
			if got.Status != c.wantStatus || (c.wantDetail != "" && !strings.HasPrefix(got.Detail, c.wantDetail)) {
				t.Fatalf("settled %s %q, want %s %q", got.Status, got.Detail, c.wantStatus, c.wantDetail)
			}
			if !run.disposed {
				t.Fatal("the run was not disposed before its outcome was reported")
			}
			if c.wantOutput != "" {
				r, err := reg.Read("owner", snap.ID)
				if err != nil || r.Output != c.wantOutput {
					t.Fatalf("output %q %v, want %q", r.Output, err, c.wantOutput)
				}
			}
		})
	}
}
