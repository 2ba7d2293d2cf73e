package agenttools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/tooldef"
)

// A Tool is one tool a model can call: its name, the description the model
// reads, the JSON Schemas of its input and of its result, each a document
// of its own (no $ref), its hints and whether it can run as a task. The
// built-in tools' come from spec/tools.yaml (package tools' table). A start
// tool whose TaskSupport lets it run as a task must return its job's id as
// "jobId", and its output schema must accept the members job_wait's result
// adds (job, finished, notice).
type Tool = tooldef.Tool

// Annotations are what a tool tells a client about its effects, so that
// the client can decide what to confirm with a person.
type Annotations = tooldef.Annotations

// A StartTool is a tool the runtime offers through every Toolset: one that
// starts work of the runtime's choosing (a shell command as a procjob, say)
// for the caller. Which jobs an agent may start is the runtime's decision,
// so the library has no start tool of its own.
type StartTool struct {
	Tool
	// Call runs the tool for caller with the model's arguments and returns
	// the result's JSON. Jobs it starts should be owned by caller.Session,
	// so the caller's job tools see them. An *Error it returns reaches the
	// model as it is; a registry error (ErrTooManyJobs, ErrClosed …) is
	// told as the job tools tell it; any other error becomes an internal
	// error whose text goes to the log, not to the model. A panic is
	// contained the same way.
	Call func(ctx context.Context, caller Caller, args json.RawMessage) (json.RawMessage, error)
}

// A Caller is who calls a tool: the session whose jobs the call sees, and
// the calling agent when the Toolset has one.
type Caller struct {
	Session jobs.SessionID
	Agent   subagent.Agent
}

// Tools is what every caller's Toolset shares: the registry, the subagent
// service, the runtime's start tools, and the output cursors of job_output
// (what a read took from a job but did not yet show, kept per job so that
// no byte is lost when a caller's connection, and its Toolset, goes away).
// What it keeps for a job ends when the registry removes the job, and what
// it keeps for a session (its cursors, the subagents it started) when the
// registry disposes the session (Registry.DisposeOwner), whether or not
// the session calls a tool again. It is safe for concurrent use. Make one
// with New; Close lets go of the registry.
type Tools struct {
	reg         *registry.Registry
	history     journal.Store // facts of jobs the registry no longer holds, or nil
	svc         *subagent.Service
	starts      []StartTool
	log         *slog.Logger
	noticeBytes int

	defs     []builtinDef // the built-in tools, in the table's order
	cursors  cursors
	children children
	stop     func() // ends the subscription to the registry's removals
}

// An Option configures Tools.
type Option func(*Tools)

// WithSubagents offers send_message, report and subagent_start, through svc,
// to the Toolsets made with ForAgent.
func WithSubagents(svc *subagent.Service) Option { return func(t *Tools) { t.svc = svc } }

// WithStartTool offers st to every Toolset, before the built-in tools.
func WithStartTool(st StartTool) Option { return func(t *Tools) { t.starts = append(t.starts, st) } }

// WithLogger sets where failures the model is not told about are logged.
// Without it, or with nil, nothing is logged.
func WithLogger(l *slog.Logger) Option { return func(t *Tools) { t.log = l } }

// WithNoticeBytes sets the budget of the notice job_wait returns; zero or
// less keeps tools.DefaultNoticeBytes.
func WithNoticeBytes(n int) Option {
	return func(t *Tools) {
		if n > 0 {
			t.noticeBytes = n
		}
	}
}

// New returns the tools over reg. It refuses a start tool without a name,
// a Call or an object input schema, and one whose name is taken.
func New(reg *registry.Registry, opts ...Option) (*Tools, error) {
	if reg == nil {
		return nil, errors.New("agenttools: a registry is required")
	}
	t := &Tools{reg: reg, noticeBytes: tools.DefaultNoticeBytes}
	for _, o := range opts {
		o(t)
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	defs, err := builtinDefs()
	if err != nil {
		return nil, err
	}
	t.defs = defs
	seen := map[string]bool{}
	for _, d := range defs {
		seen[d.Name] = true
	}
	for _, st := range t.starts {
		if err := checkStartTool(st, seen); err != nil {
			return nil, err
		}
		seen[st.Name] = true
	}
	t.stop = reg.OnRemoved(t.removed)
	return t, nil
}

// removed lets go of what the tools keep for jobs the registry removed,
// and for a session it disposed.
func (t *Tools) removed(rm registry.Removal) {
	t.cursors.drop(rm.Jobs)
	if rm.Disposed {
		t.cursors.dropOwner(rm.Owner)
		t.children.drop(rm.Owner)
	}
}

// Close stops following the registry's removals; the Tools must not be
// used after it. A Tools that lives as long as its registry need not be
// closed: the registry's Close ends the subscription too.
func (t *Tools) Close() { t.stop() }

func checkStartTool(st StartTool, seen map[string]bool) error {
	switch {
	case st.Name == "":
		return errors.New("agenttools: a start tool needs a name")
	case seen[st.Name]:
		return fmt.Errorf("agenttools: start tool %q: the name is taken", st.Name)
	case st.Call == nil:
		return fmt.Errorf("agenttools: start tool %q has no Call", st.Name)
	}
	var in struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(st.InputSchema, &in) != nil || in.Type != "object" {
		return fmt.Errorf("agenttools: start tool %q: its input schema must be a JSON Schema of type object", st.Name)
	}
	return nil
}

// For returns the Toolset of a caller that is a session with no agent the
// manager knows (a user's session, an MCP client): the job tools and the
// start tools.
func (t *Tools) For(session jobs.SessionID) *Toolset {
	return &Toolset{t: t, caller: Caller{Session: session}}
}

// ForAgent returns the Toolset of a live agent: the job tools and start
// tools of its session (agent.ID()), and, with WithSubagents, send_message
// to the subagents it started, report to the agent that started it, and
// subagent_start. The manager authorizes by the very agent value, so agent
// must be the one the runtime's host made (or attached).
func (t *Tools) ForAgent(agent subagent.Agent) *Toolset {
	return &Toolset{t: t, caller: Caller{Session: agent.ID(), Agent: agent}}
}

// A Toolset is the tools of one caller, fenced by its session exactly as
// the registry fences reads: a job of another session is an unknown job.
// It is safe for concurrent use.
type Toolset struct {
	t      *Tools
	caller Caller
}

// Caller returns whom the Toolset calls for.
func (s *Toolset) Caller() Caller { return s.caller }

// Tools lists the caller's tools: the runtime's start tools, then the
// built-in tools in the order spec/tools.yaml declares them (job_list,
// job_output, job_wait and job_kill, then, for an agent with a subagent
// service, subagent_start, send_message and report).
func (s *Toolset) Tools() []Tool {
	var out []Tool
	for _, st := range s.t.starts {
		out = append(out, st.Tool)
	}
	for _, d := range s.t.defs {
		if s.offers(d) {
			out = append(out, d.Tool)
		}
	}
	return out
}

// offers reports whether the caller has the built-in tool d.
func (s *Toolset) offers(d builtinDef) bool {
	return !d.subagent || (s.t.svc != nil && s.caller.Agent != nil)
}

// Call runs the tool named name with the model's arguments, a JSON object,
// and returns the result's JSON, which the tool's OutputSchema describes.
// A failure is always an *Error (errors.As), never a Go error of the layers
// below: hand its JSON to the model as the tool's error result.
func (s *Toolset) Call(ctx context.Context, name string, args json.RawMessage) (result json.RawMessage, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.t.log.Error("agenttools: tool panicked", "tool", name, "session", s.caller.Session, "panic", v)
			result, err = nil, internal()
		}
	}()
	if i := slices.IndexFunc(s.t.starts, func(st StartTool) bool { return st.Name == name }); i >= 0 {
		return s.callStart(ctx, s.t.starts[i], args)
	}
	i := slices.IndexFunc(s.t.defs, func(d builtinDef) bool { return d.Name == name })
	if i < 0 || !s.offers(s.t.defs[i]) {
		return nil, unknownTool(cutUTF8(name, 64), s.names())
	}
	d := s.t.defs[i]
	out, err := d.call(ctx, s, args)
	if err != nil {
		return nil, s.toolError(name, err)
	}
	data, err := json.Marshal(out)
	if err != nil {
		s.t.log.Error("agenttools: result does not encode", "tool", name, "err", err)
		return nil, internal()
	}
	return data, nil
}

func (s *Toolset) callStart(ctx context.Context, st StartTool, args json.RawMessage) (json.RawMessage, error) {
	out, err := st.Call(ctx, s.caller, args)
	if err != nil {
		return nil, s.toolError(st.Name, err)
	}
	if !json.Valid(out) {
		s.t.log.Error("agenttools: start tool returned invalid JSON", "tool", st.Name)
		return nil, internal()
	}
	return out, nil
}

// toolError makes err what the model is told: an *Error as it is, a
// registry, manager or context error mapped, anything else internal.
func (s *Toolset) toolError(tool string, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if e, ok := jobError(err, jobs.JobID{}); ok && !errors.Is(e, ErrUnknownJob) {
		return e
	}
	if e, ok := subagentError(err, tool, ""); ok {
		return e
	}
	s.t.log.Error("agenttools: tool failed", "tool", tool, "session", s.caller.Session, "err", err)
	return internal()
}

// names lists the caller's tool names, in order.
func (s *Toolset) names() []string {
	var out []string
	for _, tool := range s.Tools() {
		out = append(out, tool.Name)
	}
	return out
}

// A builtinDef is one of the library's tools: its definition, from the
// generated table, and its handler.
type builtinDef struct {
	Tool
	subagent bool // needs a subagent service and an agent
	call     func(ctx context.Context, s *Toolset, args json.RawMessage) (any, error)
}

// A builtin is what agenttools runs a tool of spec/tools.yaml with: whether
// it needs a subagent service and an agent, and its handler.
type builtin struct {
	subagent bool
	bind     binding
}

// builtins are the handlers of the tools of spec/tools.yaml, by tool. What
// a tool says of itself (its title, description, hints, task support,
// schemas and bounds) is the generated table's; none of it is here.
func builtins() map[string]builtin {
	return map[string]builtin{
		tools.JobListTool().Name:       {false, decoded((*Toolset).jobList)},
		tools.JobOutputTool().Name:     {false, decoded((*Toolset).jobOutput)},
		tools.JobWaitTool().Name:       {false, decoded((*Toolset).jobWait)},
		tools.JobKillTool().Name:       {false, decoded((*Toolset).jobKill)},
		tools.SubagentStartTool().Name: {true, decoded((*Toolset).subagentStart)},
		tools.SendMessageTool().Name:   {true, decoded((*Toolset).sendMessage)},
		tools.ReportTool().Name:        {true, decoded((*Toolset).report)},
	}
}

// builtinDefs binds each tool of the generated table, in its order, to its
// handler. A tool the spec declares and agenttools does not handle, or one
// whose handler takes another record than the spec says, is an error: the
// table and the handlers are kept in step by this, not by hand.
func builtinDefs() ([]builtinDef, error) {
	handlers := builtins()
	var defs []builtinDef
	for _, tool := range tools.Tools() {
		h, ok := handlers[tool.Name]
		switch {
		case !ok:
			return nil, fmt.Errorf("agenttools: spec/tools.yaml declares the tool %s, which agenttools has no handler for", tool.Name)
		case h.bind.input != tool.Input:
			return nil, fmt.Errorf("agenttools: the tool %s takes a %s, but its handler decodes a %s", tool.Name, tool.Input, h.bind.input)
		}
		var in map[string]any
		if err := json.Unmarshal(tool.InputSchema, &in); err != nil {
			return nil, fmt.Errorf("agenttools: the input schema of %s: %w", tool.Name, err)
		}
		shape, name, run := shapeOf(in), tool.Name, h.bind.run
		defs = append(defs, builtinDef{
			Tool:     tool,
			subagent: h.subagent,
			call: func(ctx context.Context, s *Toolset, args json.RawMessage) (any, error) {
				return run(ctx, s, args, func(err error) *Error { return shape.explain(name, args, err) })
			},
		})
		delete(handlers, tool.Name)
	}
	if left := slices.Sorted(maps.Keys(handlers)); len(left) > 0 {
		return nil, fmt.Errorf("agenttools: a handler for the tool %s, which spec/tools.yaml does not declare", left[0])
	}
	return defs, nil
}

// A handler decodes a tool's arguments and runs it; explain turns a
// decoding failure into what the model is told.
type handler func(ctx context.Context, s *Toolset, args json.RawMessage, explain func(error) *Error) (any, error)

// A binding is a handler and the name of the generated input type it
// decodes, which must be the one its tool takes.
type binding struct {
	input string
	run   handler
}

// decoded binds a tool method over its generated input type.
func decoded[In, Out any](f func(*Toolset, context.Context, In) (Out, error)) binding {
	return binding{input: reflect.TypeFor[In]().Name(), run: func(ctx context.Context, s *Toolset, args json.RawMessage, explain func(error) *Error) (any, error) {
		in, err := decodeChecked[In](args, explain)
		if err != nil {
			return nil, err
		}
		return f(s, ctx, in)
	}}
}

// decodeChecked decodes a model's arguments into an In with its generated
// decoder, then checks what the decoder does not (explain with a nil
// error: an argument the schema does not name); a failure is what explain
// makes of it.
func decodeChecked[In any](args json.RawMessage, explain func(error) *Error) (In, error) {
	var in In
	if err := decodeArgs(args, &in); err != nil {
		return in, explain(err)
	}
	if err := explain(nil); err != nil { // what decodes may still break the schema
		return in, err
	}
	return in, nil
}
