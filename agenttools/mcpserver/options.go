package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/generated/jobs"
)

// A ServerOption configures NewServer, Serve, and the server a Handler
// serves through: how it names itself, what it tells the model, and who
// hears of it. Every ServerOption is a HandlerOption too. Without any, the
// server calls itself "jobgen", gives agenttools' own instructions, and logs
// and reports nothing (decision 0229: every optional setting is an option
// whose absence is the default).
type ServerOption interface {
	HandlerOption
	applyServer(*serverConfig)
}

// A HandlerOption configures NewHandler.
type HandlerOption interface {
	applyHandler(*handlerConfig) error
}

// serverConfig is a server's configuration: its options applied.
type serverConfig struct {
	implementation *sdk.Implementation // nil: defaultImplementation
	logger         *slog.Logger        // nil: nothing logged
	instructions   string              // empty: the Toolset's own
	observer       Observer            // nil: none
}

// handlerConfig is a Handler's configuration: its arguments, and its
// options applied to the defaults.
type handlerConfig struct {
	Session   func(*http.Request) (jobs.SessionID, error)
	Toolset   func(ctx context.Context, session jobs.SessionID) (*agenttools.Toolset, error)
	Challenge string
	Fleet     Forwarder
	server    serverConfig
}

// A serverOption sets part of a server's configuration, for NewServer or a
// Handler's server alike.
type serverOption func(*serverConfig)

func (o serverOption) applyServer(c *serverConfig) { o(c) }
func (o serverOption) applyHandler(c *handlerConfig) error {
	o(&c.server)
	return nil
}

// A handlerOption sets part of a Handler's own configuration.
type handlerOption func(*handlerConfig) error

func (o handlerOption) applyHandler(c *handlerConfig) error { return o(c) }

// WithImplementation names the server to clients. Without it, or with nil,
// it is "jobgen".
func WithImplementation(impl *sdk.Implementation) ServerOption {
	return serverOption(func(c *serverConfig) { c.implementation = impl })
}

// WithInstructions sets what the server tells the client's model of how the
// tools fit together. Without it, or with "", agenttools' own
// (Toolset.Instructions).
func WithInstructions(instructions string) ServerOption {
	return serverOption(func(c *serverConfig) { c.instructions = instructions })
}

// WithObserver sets who hears of each negotiation. Without it, or with nil,
// nobody.
func WithObserver(o Observer) ServerOption {
	return serverOption(func(c *serverConfig) { c.observer = o })
}

// WithLogger sets where the SDK's log, the negotiated versions and, for a
// Handler, its contained failures go. Without it, or with nil, nothing is
// logged: the library logs only to a logger it is given.
func WithLogger(l *slog.Logger) ServerOption {
	return serverOption(func(c *serverConfig) { c.logger = l })
}

// WithChallenge sets the WWW-Authenticate value of a 401. Without it,
// `Bearer realm="jobgen"`; it may not be empty.
func WithChallenge(challenge string) HandlerOption {
	return handlerOption(func(c *handlerConfig) error {
		if challenge == "" {
			return fmt.Errorf(`mcpserver: WithChallenge(""): a 401 needs a challenge`)
		}
		c.Challenge = challenge
		return nil
	})
}

// WithFleet, in a fleet of hosts on one history, forwards a request that
// names a task (tasks/get, tasks/result, tasks/cancel, tasks/update) whose
// job this host does not hold to the host that owns it: a jobhttp.Fleet
// (its ForwardJob), whose hosts serve this handler at the same path and
// accept its signature (see fleet.go). Without it, or with nil, every task
// is served here.
func WithFleet(f Forwarder) HandlerOption {
	return handlerOption(func(c *handlerConfig) error { c.Fleet = f; return nil })
}

// newServerConfig applies opts; a nil option is skipped.
func newServerConfig(opts []ServerOption) serverConfig {
	var c serverConfig
	for _, o := range opts {
		if o != nil {
			o.applyServer(&c)
		}
	}
	return c
}
