// Command mcpjobs serves jobgen's model-facing tools over the Model Context
// Protocol, with two tools of the runtime's own: shell, which runs a
// command as a procjob of the caller's session (also as an MCP task), and
// notices, which hands the caller what its subagents sent it. An MCP
// client can start, list, read, wait for and kill jobs, follow one as a
// task, and start subagents, message them and read their reports.
//
//	go run ./examples/mcpjobs                       # the demo: an MCP client drives the server over HTTP, then it exits
//	go run ./examples/mcpjobs -stdio                # serve one session over stdin and stdout, for a client that runs this as its child
//	go run ./examples/mcpjobs -addr 127.0.0.1:8090  # serve streamable HTTP until Ctrl-C; prints a bearer token per session
//	... -journal PATH                               # keep the history in PATH: a task's status and result survive a restart
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
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jobgen/jobgen/agenttools"
	"github.com/jobgen/jobgen/agenttools/mcpserver"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/demo"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/launcher"
	"github.com/jobgen/jobgen/registry"
)

func main() {
	stdio := flag.Bool("stdio", false, "serve one session over stdin and stdout")
	addr := flag.String("addr", "", "serve streamable HTTP on this address until interrupted")
	history := flag.String("journal", "", "keep the jobs' and subagents' history in this journal file, so tasks outlive a restart (default: a temporary one)")
	flag.Parse()
	demo.Main("mcpjobs", func() error {
		switch {
		case *stdio:
			return serveStdio(context.Background(), os.Stdin, os.Stdout, *history)
		case *addr != "":
			ln, err := net.Listen("tcp", *addr)
			if err != nil {
				return err
			}
			return serveHTTP(context.Background(), ln, os.Stdout, *history, nil)
		default:
			return transcript(context.Background(), os.Stdout)
		}
	})
}

// A runtime is the registry, the journal it records to, the subagent
// service, and the tools over them, with the shell and notices tools.
type runtime struct {
	reg    *registry.Registry
	store  *journal.FileStore
	agents *agents
	tools  *agenttools.Tools
	log    *slog.Logger
	temp   string // the temporary directory of the journal, removed at the end
}

// newRuntime opens the journal at path (a temporary one when empty) and
// the runtime over it.
func newRuntime(path string) (*runtime, error) {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rt := &runtime{log: log}
	if path == "" {
		dir, err := os.MkdirTemp("", "mcpjobs-")
		if err != nil {
			return nil, err
		}
		rt.temp, path = dir, filepath.Join(dir, "journal")
	}
	store, err := journal.Open(path)
	if err != nil {
		return nil, err
	}
	rt.store = store
	rec := jobhistory.NewRecorder(store)
	rt.reg = registry.New(registry.WithLogger(log), registry.WithRecorder(rec))
	if rt.agents, err = newAgents(store); err != nil {
		return nil, err
	}
	shell, err := shellTool(rt.reg, rec, log)
	if err != nil {
		return nil, err
	}
	notices, err := rt.agents.noticesTool()
	if err != nil {
		return nil, err
	}
	rt.tools, err = agenttools.New(rt.reg,
		agenttools.WithStartTool(shell), agenttools.WithStartTool(notices),
		agenttools.WithSubagents(rt.agents.svc), agenttools.WithHistory(store), agenttools.WithLogger(log))
	if err != nil {
		return nil, err
	}
	rt.agents.tools = func() *agenttools.Tools { return rt.tools }
	return rt, nil
}

// toolset is the Toolset of a session: its root agent's, so it has the
// subagent tools.
func (rt *runtime) toolset(_ context.Context, s jobs.SessionID) (*agenttools.Toolset, error) {
	r, err := rt.agents.rootOf(s)
	if err != nil {
		return nil, err
	}
	return rt.tools.ForAgent(r), nil
}

// shutdown is the order the runtime ends in, after the disposers of what
// serves it: the subagents, then the jobs (a shell job's process group is
// stopped), then the journal that recorded them.
func (rt *runtime) shutdown(l *launcher.Launcher) {
	l.AddDisposer("subagents", rt.agents.svc.Close)
	l.AddDisposer("registry", rt.reg.Close)
	l.AddProvider("journal", func(ctx context.Context) error {
		err := rt.store.Close(ctx)
		if rt.temp != "" {
			err = errors.Join(err, os.RemoveAll(rt.temp))
		}
		return err
	})
}

// serveStdio serves the session "stdio" over in and out until the client
// closes in, or a signal: a client that starts this program as its child
// is that one session.
func serveStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser, history string) error {
	rt, err := newRuntime(history)
	if err != nil {
		return err
	}
	shutdown := launcher.New(launcher.WithBound(jobs.DefaultTeardownBound), launcher.WithLogger(rt.log))
	rt.shutdown(shutdown)
	return shutdown.Run(ctx, func(ctx context.Context) error {
		ts, err := rt.toolset(ctx, "stdio")
		if err != nil {
			return err
		}
		return mcpserver.Serve(ctx, ts, &sdk.IOTransport{Reader: in, Writer: out}, &mcpserver.ServerOptions{Implementation: &sdk.Implementation{Name: "mcpjobs", Version: "v0"}, Logger: rt.log})
	})
}

// serveHTTP serves streamable HTTP on ln, one bearer token per session,
// until a signal or ctx ends it, or, when during is set, until during
// returns (the demo's client). It prints the endpoint and the tokens.
func serveHTTP(ctx context.Context, ln net.Listener, out io.Writer, history string, during func(ctx context.Context, url string, tokens map[jobs.SessionID]string) error) error {
	rt, err := newRuntime(history)
	if err != nil {
		return err
	}
	tokens := map[jobs.SessionID]string{"alice": rand.Text(), "bob": rand.Text()}
	h, err := mcpserver.NewHandler(mcpserver.HandlerOptions{
		Session: bearerSessions(tokens),
		Toolset: rt.toolset,
		Server:  &mcpserver.ServerOptions{Implementation: &sdk.Implementation{Name: "mcpjobs", Version: "v0"}, Logger: rt.log},
		Logger:  rt.log,
	})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}

	// Shutdown order: the calls in flight end, the server stops, then the
	// runtime (subagents, jobs, journal).
	shutdown := launcher.New(launcher.WithBound(jobs.DefaultTeardownBound), launcher.WithLogger(rt.log))
	shutdown.AddDisposer("mcp", h.Close)
	shutdown.AddDisposer("server", launcher.StopServer(srv, 0))
	rt.shutdown(shutdown)
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
