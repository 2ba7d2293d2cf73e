// Package mcpserver serves the tools of package agenttools over the Model Context
// Protocol, with the official Go SDK (github.com/modelcontextprotocol/go-sdk),
// over stdio (Serve with the SDK's StdioTransport) and streamable HTTP
// (Handler).
//
// One MCP session is one jobgen session: the Toolset a session's calls go
// to is fixed when the session opens. Over HTTP the caller's session comes
// from a function the runtime supplies (HandlerOptions.Session), on every
// request — nothing trusts a header by itself — and a request that names an
// MCP session opened for another jobgen session is answered as one naming
// no session at all (404), so holding another's Mcp-Session-Id grants
// nothing.
//
// A tool's result is its JSON twice, as MCP asks: as structured content
// (which the tool's output schema describes) and as a text block; a failed
// call is a result flagged isError whose text is the tools.ToolError, a
// stable code and a sentence, never a protocol error, so the model sees it
// and can act on it.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/tools"
)

// defaultImplementation is what the server calls itself when the runtime
// does not say.
var defaultImplementation = sdk.Implementation{Name: "jobgen", Version: "v0"}

// ServerOptions configure NewServer.
type ServerOptions struct {
	// Implementation names the server to clients; nil is "jobgen".
	Implementation *sdk.Implementation
	// Logger receives the SDK's log; nil logs nothing.
	Logger *slog.Logger
	// Instructions, when set, tell the client's model how to use the tools.
	Instructions string
}

// NewServer returns an MCP server offering the tools of ts, every call of
// every session it serves going to ts. Use it for one session (Serve, an
// in-memory transport); Handler makes one per session over HTTP.
func NewServer(ts *agenttools.Toolset, opts *ServerOptions) *sdk.Server {
	return newServer(ts, opts, nil)
}

// newServer is NewServer whose sessions get their ids from sessionID,
// when it is set.
func newServer(ts *agenttools.Toolset, opts *ServerOptions, sessionID func() string) *sdk.Server {
	if opts == nil {
		opts = &ServerOptions{}
	}
	impl := opts.Implementation
	if impl == nil {
		i := defaultImplementation
		impl = &i
	}
	s := sdk.NewServer(impl, &sdk.ServerOptions{
		Logger:       opts.Logger,
		Instructions: opts.Instructions,
		Capabilities: &sdk.ServerCapabilities{}, // tools, inferred from AddTool; no logging
		GetSessionID: sessionID,
	})
	for _, tool := range ts.Tools() {
		t := &sdk.Tool{Name: tool.Name, Description: tool.Description, InputSchema: tool.InputSchema}
		if len(tool.OutputSchema) > 0 {
			t.OutputSchema = tool.OutputSchema
		}
		s.AddTool(t, handler(ts, tool.Name))
	}
	return s
}

// handler calls the tool name of ts with a request's arguments.
func handler(ts *agenttools.Toolset, name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		out, err := ts.Call(ctx, name, req.Params.Arguments)
		if err != nil {
			var e *agenttools.Error
			if !errors.As(err, &e) { // Call returns no other error; be safe
				e = &agenttools.Error{Code: tools.ErrorCodeInternal, Message: "The runtime failed to do this."}
			}
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: string(e.JSON())}}}, nil
		}
		return &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: string(out)}},
			StructuredContent: json.RawMessage(out),
		}, nil
	}
}

// Serve serves ts over one transport (the SDK's StdioTransport for a
// client that runs the runtime as its child process) until the client
// hangs up or ctx ends.
func Serve(ctx context.Context, ts *agenttools.Toolset, t sdk.Transport, opts *ServerOptions) error {
	err := NewServer(ts, opts).Run(ctx, t)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil // asked to stop
	}
	return err
}
