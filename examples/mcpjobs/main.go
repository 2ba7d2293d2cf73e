// Command mcpjobs serves jobgen's model-facing job tools over the Model
// Context Protocol, with one tool of the runtime's own, shell, that runs a
// command as a procjob of the caller's session: an MCP client can start,
// list, read, wait for and kill jobs.
//
//	go run ./examples/mcpjobs                       # the demo: an MCP client drives the server over HTTP, then it exits
//	go run ./examples/mcpjobs -stdio                # serve one session over stdin and stdout, for a client that runs this as its child
//	go run ./examples/mcpjobs -addr 127.0.0.1:8090  # serve streamable HTTP until Ctrl-C; prints a bearer token per session
//
// Over HTTP each request's session comes from its bearer token, as a
// runtime's own authentication would say it; the demo shows that one
// session cannot see, read or kill another's jobs.
package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/agenttools/mcpserver"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/launcher"
	"github.com/jobgen/jobgen/registry"
)

func main() {
	stdio := flag.Bool("stdio", false, "serve one session over stdin and stdout")
	addr := flag.String("addr", "", "serve streamable HTTP on this address until interrupted")
	flag.Parse()
	var err error
	switch {
	case *stdio:
		err = serveStdio(context.Background(), os.Stdin, os.Stdout)
	case *addr != "":
		var ln net.Listener
		if ln, err = net.Listen("tcp", *addr); err == nil {
			err = serveHTTP(context.Background(), ln, os.Stdout, nil)
		}
	default:
		err = demo(context.Background(), os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpjobs:", err)
	}
	os.Exit(launcher.ExitCode(err))
}

// A runtime is the registry and the tools over it, with the shell tool.
type runtime struct {
	reg   *registry.Registry
	tools *agenttools.Tools
	log   *slog.Logger
}

func newRuntime() (*runtime, error) {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	reg := registry.New(registry.WithLogger(log))
	shell, err := shellTool(reg)
	if err != nil {
		return nil, err
	}
	tools, err := agenttools.New(reg, agenttools.WithStartTool(shell), agenttools.WithLogger(log))
	if err != nil {
		return nil, err
	}
	return &runtime{reg: reg, tools: tools, log: log}, nil
}

// serveStdio serves the session "stdio" over in and out until the client
// closes in, or a signal: a client that starts this program as its child
// is that one session.
func serveStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	rt, err := newRuntime()
	if err != nil {
		return err
	}
	shutdown := launcher.New(launcher.WithBound(jobs.DefaultTeardownBound), launcher.WithLogger(rt.log))
	shutdown.AddDisposer("registry", rt.reg.Close)
	return shutdown.Run(ctx, func(ctx context.Context) error {
		return mcpserver.Serve(ctx, rt.tools.For("stdio"), &sdk.IOTransport{Reader: in, Writer: out}, &mcpserver.ServerOptions{Implementation: &sdk.Implementation{Name: "mcpjobs", Version: "v0"}})
	})
}

// serveHTTP serves streamable HTTP on ln, one bearer token per session,
// until a signal or ctx ends it, or, when during is set, until during
// returns (the demo's client). It prints the endpoint and the tokens.
func serveHTTP(ctx context.Context, ln net.Listener, out io.Writer, during func(ctx context.Context, url string, tokens map[jobs.SessionID]string) error) error {
	rt, err := newRuntime()
	if err != nil {
		return err
	}
	tokens := map[jobs.SessionID]string{"alice": rand.Text(), "bob": rand.Text()}
	h, err := mcpserver.NewHandler(mcpserver.HandlerOptions{
		Session: bearerSessions(tokens),
		Toolset: func(_ context.Context, s jobs.SessionID) (*agenttools.Toolset, error) { return rt.tools.For(s), nil },
		Server:  &mcpserver.ServerOptions{Implementation: &sdk.Implementation{Name: "mcpjobs", Version: "v0"}},
		Logger:  rt.log,
	})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}

	// Shutdown order: the MCP sessions end, the server stops, the registry
	// settles every job (a shell job's process group is stopped).
	shutdown := launcher.New(launcher.WithBound(jobs.DefaultTeardownBound), launcher.WithLogger(rt.log))
	shutdown.AddDisposer("mcp", h.Close)
	shutdown.AddDisposer("server", launcher.StopServer(srv, 0))
	shutdown.AddDisposer("registry", rt.reg.Close)
	url := "http://" + ln.Addr().String() + "/mcp"
	return shutdown.Run(ctx, func(ctx context.Context) error {
		errc := make(chan error, 1)
		go func() { errc <- srv.Serve(ln) }()
		if during != nil {
			return during(ctx, url, tokens)
		}
		fmt.Fprintf(out, "serving MCP (streamable HTTP) on %s (Ctrl-C to stop)\n", url)
		for _, s := range []jobs.SessionID{"alice", "bob"} {
			fmt.Fprintf(out, "  session %s: Authorization: Bearer %s\n", s, tokens[s])
		}
		select {
		case err := <-errc:
			if errors.Is(err, http.ErrServerClosed) {
				return nil
			}
			return err
		case <-ctx.Done():
			return nil
		}
	})
}

// bearerSessions names the session of a request by its bearer token.
func bearerSessions(tokens map[jobs.SessionID]string) func(*http.Request) (jobs.SessionID, error) {
	return func(r *http.Request) (jobs.SessionID, error) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return "", errors.New("no bearer token")
		}
		for s, t := range tokens {
			if subtle.ConstantTimeCompare([]byte(t), []byte(tok)) == 1 {
				return s, nil
			}
		}
		return "", errors.New("unknown token")
	}
}
