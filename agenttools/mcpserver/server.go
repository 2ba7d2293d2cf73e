// Package mcpserver serves the tools of package agenttools over the Model
// Context Protocol, with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk, imported as sdk), over stdio
// (Serve with the SDK's StdioTransport) and streamable HTTP (Handler).
//
// # Protocol versions
//
// Both transports serve every version the SDK knows: 2026-07-28, whose
// requests each carry their version, client and capabilities (no session,
// no initialize), and the handshake versions down to 2024-11-05 for older
// clients. Over HTTP the handler is stateless: every request is
// authenticated to its jobgen session by the runtime's function
// (HandlerOptions.Session) and served by one server, so memory does not
// grow with the clients that came and went; no Mcp-Session-Id is issued or
// trusted. The version a client negotiated is logged and told to the
// Observer. The handler is wrapped in http.CrossOriginProtection, so a page
// on another site cannot make a browser call job_kill with a user's cookies.
//
// # Tools
//
// The tools are the caller's Toolset: tools/list lists them with their
// titles, annotations and, for those that can run as tasks, execution
// taskSupport; tools/call calls them. A tool's result is its JSON twice,
// as MCP asks: as structured content (which the tool's output schema
// describes) and as a text block; a failed call is a result flagged
// isError whose text is the tools.ToolError, a stable code and a sentence,
// never a protocol error, so the model sees it and can act on it. A tool
// the caller does not have is a protocol error (invalid params).
//
// # Tasks
//
// A start tool and job_wait answer with a task when the client asks for
// one, in either protocol's form (see tasks.go, and decision 0161 for why
// jobgen implements them on the SDK's hooks): the task is the job. Over
// HTTP a 2026-07-28 client may also listen for its tasks' changes
// (subscriptions/listen with taskIds, notifications/tasks; listen.go).
//
// # Fleets
//
// In a fleet of hosts on one history, a task request (tasks/get, result,
// cancel, update) whose job this host does not hold is forwarded to the
// host that does, through the fleet's signed forwarding
// (HandlerOptions.Fleet, a jobhttp.Fleet): only to a configured host, at
// the same path, for the caller's session, fenced there again (see
// fleet.go and decision 0221). Each host's handler takes the fleet's
// signature with jobhttp.TrustFleet as its Session.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/tools"
	"github.com/jobgen/jobgen/tooldef"
)

// defaultImplementation is what the server calls itself when the runtime
// does not say.
var defaultImplementation = sdk.Implementation{Name: "jobgen", Version: "v0"}

// ServerOptions configure NewServer and a Handler's server.
type ServerOptions struct {
	// Implementation names the server to clients; nil is "jobgen".
	Implementation *sdk.Implementation
	// Logger receives the SDK's log and the negotiated versions; nil logs
	// nothing.
	Logger *slog.Logger
	// Instructions tell the client's model how the tools fit together;
	// empty is agenttools' own (Toolset.Instructions).
	Instructions string
	// Observer hears of each negotiation; nil hears nothing.
	Observer Observer
}

// An Observer hears what the server negotiates, for a metrics adapter or
// a test. It is called on the request's goroutine and must return promptly.
type Observer interface {
	// Negotiated reports that a client negotiated version over transport
	// ("stdio", "http"): at its initialize, or at a 2026-07-28
	// server/discover.
	Negotiated(transport, version string, client *sdk.Implementation)
}

// A toolsetFunc returns the Toolset a request's calls go to.
type toolsetFunc func(ctx context.Context) (*agenttools.Toolset, bool)

// NewServer returns an MCP server offering the tools of ts, every call of
// every session it serves going to ts. Use it for one session (Serve, an
// in-memory transport); Handler serves many callers over HTTP.
func NewServer(ts *agenttools.Toolset, opts *ServerOptions) *sdk.Server {
	return newServer(opts, "stdio", func(context.Context) (*agenttools.Toolset, bool) { return ts, true }, ts.Instructions())
}

// A server is what newServer's hooks share.
type server struct {
	transport string
	toolset   toolsetFunc
	log       *slog.Logger
	obs       Observer
}

// newServer makes the SDK server whose tools, tasks and negotiations the
// middleware serves, every request's Toolset coming from toolset.
func newServer(opts *ServerOptions, transport string, toolset toolsetFunc, instructions string) *sdk.Server {
	if opts == nil {
		opts = &ServerOptions{}
	}
	impl := opts.Implementation
	if impl == nil {
		i := defaultImplementation
		impl = &i
	}
	if opts.Instructions != "" {
		instructions = opts.Instructions
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := sdk.NewServer(impl, &sdk.ServerOptions{
		Logger:       opts.Logger,
		Instructions: instructions,
		Capabilities: &sdk.ServerCapabilities{
			Tools:      &sdk.ToolCapabilities{},
			Extensions: map[string]any{tasksExtension: map[string]any{}},
		},
	})
	srv := &server{transport: transport, toolset: toolset, log: log, obs: opts.Observer}
	s.AddReceivingMiddleware(srv.middleware)
	srv.addTaskMethods(s)
	return s
}

// middleware serves tools/list and tools/call from the request's Toolset,
// and watches the negotiations.
func (srv *server) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if done, ok := ctx.Value(doneKey{}).(context.Context); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(done, cancel)()
		}
		switch method {
		case "tools/list":
			ts, ok := srv.toolset(ctx)
			if !ok {
				return nil, errNoToolset
			}
			version := ""
			if r, ok := req.(*sdk.ListToolsRequest); ok {
				version = r.ProtocolVersion()
			}
			return listTools(ts, version), nil
		case "tools/call":
			ts, ok := srv.toolset(ctx)
			if !ok {
				return nil, errNoToolset
			}
			return srv.callTool(ctx, ts, req.(*sdk.CallToolRequest))
		case "initialize":
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			init := res.(*sdk.InitializeResult)
			if ts, ok := srv.toolset(ctx); ok && init.Instructions == "" {
				init.Instructions = ts.Instructions()
			}
			if r, ok := req.(*sdk.ServerRequest[*sdk.InitializeParams]); ok && r.Params != nil {
				srv.negotiated(init.ProtocolVersion, r.Params.ClientInfo)
			}
			return withTaskCapability(init), nil
		case "server/discover":
			if r, ok := req.(*sdk.ServerRequest[*sdk.DiscoverParams]); ok {
				srv.negotiated(r.ProtocolVersion(), r.ClientInfo())
			}
			res, err := next(ctx, method, req)
			if d, ok := res.(*sdk.DiscoverResult); ok && err == nil && d.Instructions == "" {
				if ts, ok := srv.toolset(ctx); ok {
					d.Instructions = ts.Instructions()
				}
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

var errNoToolset = errors.New("mcpserver: no toolset for the request")

// doneKey carries, in a request's context, a context that ends when the
// request's calls must: the HTTP request's end, or the handler's Close.
type doneKey struct{}

// negotiated logs and tells the observer a client's version.
func (srv *server) negotiated(version string, client *sdk.Implementation) {
	name := ""
	if client != nil {
		name = client.Name + " " + client.Version
	}
	srv.log.Info("mcpserver: protocol negotiated", "transport", srv.transport, "version", version, "client", name)
	if srv.obs != nil {
		srv.obs.Negotiated(srv.transport, version, client)
	}
}

// A listToolsResult is tools/list's answer with each tool as jobgen writes
// it, since the SDK's Tool has no execution member (taskSupport). Its
// cache hints say private: the list is the caller's.
type listToolsResult struct {
	sdk.ResultBase
	ResultType string            `json:"resultType,omitempty"`
	TTLMs      int               `json:"ttlMs"`
	CacheScope string            `json:"cacheScope"`
	Tools      []json.RawMessage `json:"tools"`
}

// listTools lists the tools of ts, for a request at version.
func listTools(ts *agenttools.Toolset, version string) *listToolsResult {
	res := &listToolsResult{Tools: []json.RawMessage{}, CacheScope: "private"}
	if version >= "2026-07-28" {
		res.ResultType = "complete"
	}
	for _, t := range ts.Tools() {
		res.Tools = append(res.Tools, toolJSON(t))
	}
	return res
}

// A wireTool is a tool on the wire: the SDK's fields and execution.
type wireTool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *wireAnnotations `json:"annotations,omitempty"`
	Execution    *wireExecution   `json:"execution,omitempty"`
}

// wireAnnotations are a tool's hints, every one written out, since
// clients differ in what they assume of a missing hint.
type wireAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint bool   `json:"destructiveHint"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

type wireExecution struct {
	TaskSupport string `json:"taskSupport"`
}

func toolJSON(t agenttools.Tool) json.RawMessage {
	w := wireTool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema}
	if a := t.Annotations; a != nil {
		w.Annotations = &wireAnnotations{Title: t.Title, ReadOnlyHint: a.ReadOnly, DestructiveHint: a.Destructive, IdempotentHint: a.Idempotent, OpenWorldHint: a.OpenWorld}
	}
	if t.TaskSupport.Tasks() {
		w.Execution = &wireExecution{TaskSupport: t.TaskSupport.String()}
	}
	data, err := json.Marshal(w)
	if err != nil { // every member is JSON already
		panic(fmt.Sprintf("mcpserver: tool %s does not encode: %v", t.Name, err))
	}
	return data
}

// callTool calls a tool of ts: as a task when the client asks for one and
// the tool can run as one, else at once.
func (srv *server) callTool(ctx context.Context, ts *agenttools.Toolset, req *sdk.CallToolRequest) (sdk.Result, error) {
	i := slices.IndexFunc(ts.Tools(), func(t agenttools.Tool) bool { return t.Name == req.Params.Name })
	if i < 0 {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", req.Params.Name)}
	}
	tool := ts.Tools()[i]
	form := taskForm(req)
	switch {
	case form != noTask && tool.TaskSupport.Tasks():
		return srv.startTask(ctx, ts, req, tool, form)
	case tool.TaskSupport == tooldef.TaskRequired:
		// MCP: a tool whose taskSupport is required answers a call without a
		// task with "method not found".
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("tool %q runs only as a task: call it with a task", tool.Name)}
	}
	stop := srv.progress(ctx, ts, req, tool.Name)
	defer stop()
	out, err := ts.Call(ctx, tool.Name, req.Params.Arguments)
	return toolResult(req.ProtocolVersion(), out, err), nil
}

// A callResult is a tools/call result as jobgen writes it: the SDK's
// CallToolResult sets its resultType (which 2026-07-28 requires) only on
// the SDK's own call path, which the middleware does not take.
type callResult struct {
	sdk.ResultBase
	ResultType        string          `json:"resultType,omitempty"`
	Content           []sdk.Content   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// toolResult is what a Toolset's call answers as MCP's result, for a
// request at version.
func toolResult(version string, out json.RawMessage, err error) *callResult {
	res := &callResult{}
	if version >= "2026-07-28" {
		res.ResultType = "complete"
	}
	if err != nil {
		var e *agenttools.Error
		if !errors.As(err, &e) { // Call returns no other error; be safe
			e = &agenttools.Error{Code: tools.ErrorCodeInternal, Message: "The runtime failed to do this."}
		}
		res.IsError, res.Content = true, []sdk.Content{&sdk.TextContent{Text: string(e.JSON())}}
		return res
	}
	res.Content, res.StructuredContent = []sdk.Content{&sdk.TextContent{Text: string(out)}}, out
	return res
}

// Serve serves ts over one transport (the SDK's StdioTransport for a
// client that runs the runtime as its child process) until the client
// hangs up or ctx ends.
func Serve(ctx context.Context, ts *agenttools.Toolset, t sdk.Transport, opts *ServerOptions) error {
	err := NewServer(ts, opts).Run(ctx, liftingTransport{t})
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil // asked to stop
	}
	return err
}
