package subagent

import (
	"context"
	"encoding/json"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
)

// A Provider makes subagents of one kind (a fork of the parent, a fresh
// specialist …), registered with Service.RegisterProvider under its Name.
// What it can make is the methods it has: a OneShotProvider starts one-shot
// runs, a ContinuablePreparer creates continuable children (and never
// takes part in their resume); it is at least one of them.
type Provider interface {
	// Name is the provider's registered name.
	Name() string
}

// A OneShotProvider is a Provider that starts one-shot runs.
type OneShotProvider interface {
	Provider
	// Capabilities says which optional parts of a StartRequest it honours.
	Capabilities() Capabilities
	// Start starts a one-shot run. The request was checked against
	// Capabilities and carries its descriptor.
	Start(ctx context.Context, req ResolvedStartRequest) (Run, error)
}

// A ContinuablePreparer is a Provider that can create continuable children.
// It contributes only detached data for the first creation: the seed.
type ContinuablePreparer interface {
	PrepareContinuable(ctx context.Context, req ContinuableCreateRequest) (ContinuableCreateSpec, error)
}

// Continuable returns a provider of continuable children only, named name,
// whose seed prepare returns; a nil prepare seeds nothing.
func Continuable(name string, prepare func(ctx context.Context, req ContinuableCreateRequest) (ContinuableCreateSpec, error)) Provider {
	return continuableFunc{name, prepare}
}

type continuableFunc struct {
	name    string
	prepare func(context.Context, ContinuableCreateRequest) (ContinuableCreateSpec, error)
}

func (c continuableFunc) Name() string { return c.name }

func (c continuableFunc) PrepareContinuable(ctx context.Context, req ContinuableCreateRequest) (ContinuableCreateSpec, error) {
	if c.prepare == nil {
		return ContinuableCreateSpec{}, nil
	}
	return c.prepare(ctx, req)
}

// Capabilities are the optional request fields a provider honours for
// one-shot runs; a request using one it lacks is ErrUnsupportedCapability.
type Capabilities struct {
	OutputSchema bool
	DepthLimit   bool
	ToolFilter   bool
	Persona      bool
}

// AgentOptions choose the model a run or child runs on. Given, they are the
// route as they stand (an empty field is the runtime's default); not given
// (nil), a continuable child takes its parent's route (see RoutedAgent).
type AgentOptions struct {
	Provider string
	Model    string
}

// A StartRequest is what a caller asks of Service.Start: a one-shot run.
type StartRequest struct {
	// Label is a short human description.
	Label string
	// Prompt is the run's first message.
	Prompt []subagents.ContentBlock
	// Parent is the delegating agent.
	Parent Agent
	// AgentOptions choose the model; nil inherits the parent's.
	AgentOptions *AgentOptions
	// OutputSchema, when set, is a JSON Schema whose root is an object.
	OutputSchema json.RawMessage
	// MaxDepth, when set, caps the delegation depth below the run.
	MaxDepth *int
	// ToolFilter narrows the run's tools.
	ToolFilter *subagents.ToolFilter
	// Persona names a persona for the run.
	Persona string
}

// A ResolvedStartRequest is what a provider receives: the caller's request,
// checked, with the descriptor the manager derived for it.
type ResolvedStartRequest struct {
	StartRequest
	Descriptor subagents.Descriptor
}

// A Run is one one-shot subagent run, owned by whoever started it.
type Run interface {
	// ID is the run's session.
	ID() jobs.SessionID
	// Agent is the run's local agent, or nil when it runs elsewhere.
	Agent() Agent
	// Result blocks until the run ends and returns how.
	Result(ctx context.Context) (Result, error)
	// Dispose releases the run; a running one is stopped.
	Dispose(ctx context.Context) error
}

// A Result is how a one-shot run ended.
type Result struct {
	// Output is the run's text output.
	Output string
	// Structured is the output as JSON, when an OutputSchema asked for it.
	Structured json.RawMessage
	// Diagnostic explains a failure, at most DefaultDiagnosticBytes.
	Diagnostic string
	// StopReason says how the run ended.
	StopReason subagents.StopReason
}

// A ContinuableSpec is what a caller asks of Service.StartContinuable.
type ContinuableSpec struct {
	// Provider names the provider that prepares the child.
	Provider string
	// Label is a short human description; it is required.
	Label string
	// ChildID reserves the child's session id; empty draws a fresh UUID.
	ChildID jobs.SessionID
	// Parent is the delegating agent: an attached root or a live child.
	Parent Agent
	// Prompt is the child's first message.
	Prompt []subagents.ContentBlock
	// AgentOptions choose the child's model; nil takes the parent's route,
	// which the descriptor then holds for every residency.
	AgentOptions *AgentOptions
	// MaxDepth, when set, caps the child's delegation depth.
	MaxDepth *int
	// ToolFilter narrows the child's tools.
	ToolFilter *subagents.ToolFilter
	// Persona names the child's persona.
	Persona string
}

// A ContinuableCreateRequest is what a provider sees when a continuable
// child is created: the reserved id and the parent's session, never the
// agent itself.
type ContinuableCreateRequest struct {
	SessionID     jobs.SessionID
	ParentSession jobs.SessionID
	Descriptor    subagents.Descriptor
}

// A ContinuableCreateSpec is a provider's contribution to a new child.
type ContinuableCreateSpec struct {
	// Seed is the child's starting history (a parent's completed-turn
	// prefix), contiguous and in order; the runtime reads it back.
	Seed []json.RawMessage
}

// FollowupOptions qualify a Followup.
type FollowupOptions struct {
	// Source says who sent the message; the zero value is a user.
	Source subagents.MessageSource
}

// ReportOptions qualify a ReportFrom.
type ReportOptions struct {
	// Delivery says whether the report wakes the parent; empty is nextStep.
	Delivery subagents.Delivery
}
