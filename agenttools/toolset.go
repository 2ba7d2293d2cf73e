package agenttools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent"
)

// A Tool is one tool a model can call: its name, the description the model
// reads, and the JSON Schemas of its input and of its result, each a
// document of its own (no $ref).
type Tool struct {
	Name string `json:"name"`
	// Title is the tool's name for people, such as "List jobs".
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are the tool's hints to a client (MCP's annotations);
	// nil says nothing.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Tasks says that the tool can run as a task: its call stands for a
	// job (a start tool's, job_wait's), which a task protocol follows to
	// its end. A start tool with Tasks must return its job's id as
	// "jobId", and its output schema must accept the members job_wait's
	// result adds (job, finished, notice).
	Tasks bool `json:"tasks,omitempty"`
}

// Annotations are what a tool tells a client about its effects, so that
// the client can decide what to confirm with a person.
type Annotations struct {
	ReadOnly    bool `json:"readOnly,omitempty"`    // it changes nothing
	Destructive bool `json:"destructive,omitempty"` // it may end or undo work
	Idempotent  bool `json:"idempotent,omitempty"`  // calling it twice does what once does
	OpenWorld   bool `json:"openWorld,omitempty"`   // it reaches beyond the runtime
}

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

	defs     map[string]builtinDef // the built-in tools, by name
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
	for name := range defs {
		seen[name] = true
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

// Tools lists the caller's tools: the runtime's start tools, then job_list,
// job_output, job_wait and job_kill, then, for an agent with a subagent
// service, subagent_start, send_message and report.
func (s *Toolset) Tools() []Tool {
	var out []Tool
	for _, st := range s.t.starts {
		out = append(out, st.Tool)
	}
	for _, name := range builtinOrder {
		if d := s.t.defs[name]; s.offers(d) {
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
	d, ok := s.t.defs[name]
	if !ok || !s.offers(d) {
		return nil, unknownTool(cutUTF8(name, 64), s.names())
	}
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
// generated schemas, and its handler.
type builtinDef struct {
	Tool
	subagent bool // needs a subagent service and an agent
	call     func(ctx context.Context, s *Toolset, args json.RawMessage) (any, error)
}

// builtinOrder is the order Tools lists the built-in tools in.
var builtinOrder = []string{"job_list", "job_output", "job_wait", "job_kill", "subagent_start", "send_message", "report"}

// builtinDefs builds the built-in tools from tools.schema.json: each tool's
// input and result records, inlined, and its description, the input
// record's doc with the record's name replaced by the tool's.
func builtinDefs() (map[string]builtinDef, error) {
	set, err := generatedSchemas()
	if err != nil {
		return nil, err
	}
	type spec struct {
		name, input, output string
		subagent            bool
		call                handler
		title               string
		hints               Annotations
		tasks               bool
	}
	specs := []spec{
		{"job_list", "JobList", "JobListResult", false, decoded((*Toolset).jobList), "List jobs", Annotations{ReadOnly: true, Idempotent: true}, false},
		// job_output consumes what it returns, but changes no job.
		{"job_output", "JobOutput", "JobOutputResult", false, decoded((*Toolset).jobOutput), "Read a job's new output", Annotations{ReadOnly: true}, false},
		{"job_wait", "JobWait", "JobWaitResult", false, decoded((*Toolset).jobWait), "Wait for a job", Annotations{ReadOnly: true, Idempotent: true}, true},
		{"job_kill", "JobKill", "JobKillResult", false, decoded((*Toolset).jobKill), "Stop a job", Annotations{Destructive: true, Idempotent: true}, false},
		{"subagent_start", "SubagentStart", "SubagentStartResult", true, decoded((*Toolset).subagentStart), "Start a subagent", Annotations{}, false},
		{"send_message", "SendMessage", "SendMessageResult", true, decoded((*Toolset).sendMessage), "Message a subagent", Annotations{}, false},
		{"report", "Report", "ReportResult", true, decoded((*Toolset).report), "Report to your parent", Annotations{}, false},
	}
	defs := map[string]builtinDef{}
	for _, sp := range specs {
		in, err := set.def("tools.schema.json", sp.input)
		if err != nil {
			return nil, err
		}
		out, err := set.def("tools.schema.json", sp.output)
		if err != nil {
			return nil, err
		}
		desc, _ := in["description"].(string)
		if rest, ok := strings.CutPrefix(desc, sp.input+" "); ok {
			desc = sp.name + " " + rest
		}
		delete(in, "description") // the tool's description says it
		bound(sp.input, in)
		shape := shapeOf(in)
		name := sp.name
		defs[sp.name] = builtinDef{
			Tool: Tool{Name: sp.name, Title: sp.title, Description: desc, InputSchema: mustJSON(in), OutputSchema: mustJSON(out),
				Annotations: &sp.hints, Tasks: sp.tasks},
			subagent: sp.subagent,
			call: func(ctx context.Context, s *Toolset, args json.RawMessage) (any, error) {
				return sp.call(ctx, s, args, func(err error) *Error { return shape.explain(name, args, err) })
			},
		}
	}
	return defs, nil
}

// bounds are the real bounds of the arguments whose docs promise one: the
// tools' caps, from spec/tools.yaml's defaults.
var bounds = map[string]map[string]float64{
	"JobOutput": {"maxBytes": tools.DefaultMaxOutputBytes},
	"JobWait":   {"timeoutSeconds": tools.DefaultMaxWaitTimeout.Seconds()},
}

// bound makes the input schema of record say what the tool takes: no
// argument it does not know, and each bounded argument's maximum.
func bound(record string, in map[string]any) {
	in["additionalProperties"] = false
	props, _ := in["properties"].(map[string]any)
	for name, max := range bounds[record] {
		if p, ok := props[name].(map[string]any); ok {
			p["maximum"] = max
		}
	}
}

// A handler decodes a tool's arguments and runs it; explain turns a
// decoding failure into what the model is told.
type handler func(ctx context.Context, s *Toolset, args json.RawMessage, explain func(error) *Error) (any, error)

// decoded makes a handler of a tool method over its generated input type.
func decoded[In, Out any](f func(*Toolset, context.Context, In) (Out, error)) handler {
	return func(ctx context.Context, s *Toolset, args json.RawMessage, explain func(error) *Error) (any, error) {
		var in In
		if err := decodeArgs(args, &in); err != nil {
			return nil, explain(err)
		}
		if err := explain(nil); err != nil { // what decodes may still break the schema
			return nil, err
		}
		return f(s, ctx, in)
	}
}
