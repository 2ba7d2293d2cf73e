package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
)

// JobKind is the registry kind of a one-shot run started with StartJob.
const JobKind = "subagent"

// Start starts an ordinary one-shot run through the named provider; the run
// belongs to the caller, who must Dispose it. Checks run in this order: the
// provider (ErrNoProvider), a OneShotProvider (ErrUnsupportedCapability);
// the capabilities the request uses, in the order
// outputSchema, depthLimit, toolFilter, persona (ErrUnsupportedCapability);
// MaxDepth (not negative) and the output schema (an object at the root)
// (ErrInvalidRequest). The provider then gets the request with a one-shot
// descriptor.
//
// A run whose Agent is local is a live parent while it runs, as if
// attached: it may start continuable children, which are drained
// (DrainDescendants) when the run ends — when its Result returns the run's
// end, or at Dispose — before the run itself is disposed.
func (s *Service) Start(ctx context.Context, provider string, req StartRequest) (Run, error) {
	if err := cancelled(ctx, "start a run"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		return nil, newError(subagents.ErrorCodeDraining, nil, "the manager is draining")
	}
	registered, err := s.provider(provider)
	if err != nil {
		return nil, err
	}
	p, ok := registered.(OneShotProvider)
	if !ok {
		return nil, newError(subagents.ErrorCodeUnsupportedCapability, nil, "provider %q does not support one-shot runs (no Start capability)", provider)
	}
	caps := p.Capabilities()
	for _, c := range []struct {
		used, has bool
		name      string
	}{
		{req.OutputSchema != nil, caps.OutputSchema, "outputSchema"},
		{req.MaxDepth != nil, caps.DepthLimit, "depthLimit"},
		{req.ToolFilter != nil, caps.ToolFilter, "toolFilter"},
		{req.Persona != "", caps.Persona, "persona"},
	} {
		if c.used && !c.has {
			return nil, newError(subagents.ErrorCodeUnsupportedCapability, nil, "provider %q does not support %s", provider, c.name)
		}
	}
	if req.MaxDepth != nil && *req.MaxDepth < 0 {
		return nil, newError(subagents.ErrorCodeInvalidRequest, nil, "maxDepth must be a non-negative integer, not %d", *req.MaxDepth)
	}
	if req.OutputSchema != nil {
		var root map[string]json.RawMessage
		if err := json.Unmarshal(req.OutputSchema, &root); err != nil || string(root["type"]) != `"object"` {
			return nil, newError(subagents.ErrorCodeInvalidRequest, nil, "outputSchema must be a JSON Schema whose root has type object")
		}
	}
	resolved := ResolvedStartRequest{
		StartRequest: req,
		Descriptor:   subagents.Descriptor{Version: DescriptorVersion, Mode: subagents.DescriptorModeOneShot, Provider: provider, Label: req.Label},
	}
	run, err := p.Start(ctx, resolved)
	if err != nil {
		return nil, s.failure(ctx, err, "provider %q: start", provider)
	}
	return s.lineage(ctx, run)
}

// lineage makes a run's local agent a live parent until the run ends.
func (s *Service) lineage(ctx context.Context, run Run) (Run, error) {
	agent := run.Agent()
	if agent == nil {
		return run, nil
	}
	s.mu.Lock()
	attached := s.roots[agent.ID()].agent == agent
	s.mu.Unlock()
	if attached {
		return run, nil // the runtime attached it itself and detaches it
	}
	detach, err := s.Attach(agent)
	if err != nil {
		run.Dispose(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("subagent: make the run's agent a parent: %w", err)
	}
	return &parentRun{Run: run, s: s, agent: agent, detach: detach}, nil
}

// A parentRun is a one-shot run whose agent is a live parent: its
// continuable children are drained, and the agent detached, once the run
// ends or is disposed.
type parentRun struct {
	Run
	s      *Service
	agent  Agent
	detach func()
	once   sync.Once
	err    error
}

// Result returns the run's end, after draining its children.
func (r *parentRun) Result(ctx context.Context) (Result, error) {
	res, err := r.Run.Result(ctx)
	if ctx.Err() == nil {
		r.end(ctx)
	}
	return res, err
}

// Dispose drains the run's children, then disposes the run.
func (r *parentRun) Dispose(ctx context.Context) error {
	return errors.Join(r.end(ctx), r.Run.Dispose(ctx))
}

func (r *parentRun) end(ctx context.Context) error {
	r.once.Do(func() {
		r.err = r.s.DrainDescendants(context.WithoutCancel(ctx), []Agent{r.agent})
		r.detach()
	})
	return r.err
}

// StartJob starts a one-shot run in the background as a job of kind
// "subagent" in the registry given WithRegistry, owned by the parent's
// session. Killing the job cancels the run's context. The outcome maps as:
// completed → completed with the output; aborted → killed; any other stop
// reason → failed with the reason (and "; diagnostic: …"); a Result error →
// failed "Error: …". The run is disposed before the outcome is reported; a
// failed Dispose turns it into failed "<detail>; dispose failed: …".
func (s *Service) StartJob(ctx context.Context, provider string, req StartRequest) (jobs.JobSnapshot, error) {
	if s.jobs == nil {
		return jobs.JobSnapshot{}, errors.New("subagent: StartJob needs a registry (WithRegistry)")
	}
	label := req.Label
	if label == "" {
		label = provider
	}
	var owner jobs.SessionID
	if req.Parent != nil {
		owner = req.Parent.ID()
	}
	return s.jobs.Start(ctx, jobs.PlainJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: JobKind, Label: label, Owner: owner},
		Run: func(jctx context.Context, job jobs.RunningJob) (jobs.Hooks, error) {
			runCtx, cancel := context.WithCancelCause(context.WithoutCancel(jctx))
			run, err := s.Start(runCtx, provider, req)
			if err != nil {
				cancel(err)
				return jobs.Hooks{}, err
			}
			var once sync.Once
			return jobs.Hooks{
				Cancel: func(reason string) error {
					once.Do(func() { cancel(errors.New(reason)) })
					return nil
				},
				Done: func() (jobs.JobOutcome, error) {
					defer cancel(nil)
					res, rerr := run.Result(context.Background())
					return outcome(res, rerr, run.Dispose(context.WithoutCancel(runCtx))), nil
				},
			}, nil
		},
	})
}

// outcome maps a one-shot run's end to the job's outcome.
func outcome(res Result, resultErr, disposeErr error) jobs.JobOutcome {
	var out jobs.JobOutcome
	switch {
	case resultErr != nil:
		out = jobs.JobOutcome{Status: jobs.JobStatusFailed, Detail: "Error: " + resultErr.Error()}
	case res.StopReason == subagents.StopReasonCompleted:
		out = jobs.JobOutcome{Status: jobs.JobStatusCompleted, Output: res.Output}
	case res.StopReason == subagents.StopReasonAborted:
		out = jobs.JobOutcome{Status: jobs.JobStatusKilled}
	default:
		detail := string(res.StopReason)
		if detail == "" {
			detail = "no stop reason"
		}
		if res.Diagnostic != "" {
			detail += "; diagnostic: " + truncateUTF8(res.Diagnostic, subagents.DefaultDiagnosticBytes)
		}
		out = jobs.JobOutcome{Status: jobs.JobStatusFailed, Detail: detail}
	}
	if disposeErr != nil {
		detail := out.Detail
		if detail == "" {
			detail = string(res.StopReason)
		}
		out = jobs.JobOutcome{Status: jobs.JobStatusFailed, Detail: detail + "; dispose failed: " + disposeErr.Error()}
	}
	return out
}
