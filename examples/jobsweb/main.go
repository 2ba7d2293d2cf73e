// Command jobsweb serves the jobs console over a registry running a few
// shell jobs for one demo session (coloured output, a failure, a deadline
// that passes), a scripted tree of continuable subagents, and a file
// journal for the timeline and the subagents' histories.
//
//	go run ./examples/jobsweb            # http://127.0.0.1:8080/
//	go run ./examples/jobsweb -addr 127.0.0.1:9000
//	go run ./examples/jobsweb -addr :8080 -hosts devbox.lan,10.0.0.7
//
// Every request is the demo session's: a real runtime authenticates the
// caller in the session function it gives jobhttp.New instead. The page answers only to the loopback
// names unless -hosts lists the names it is reached by (jobhttp.WithHosts).
package main

import (
	"context"
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

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/demo"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/launcher"
	"github.com/jobgen/jobgen/procjob"
	"github.com/jobgen/jobgen/registry"
)

const session jobs.SessionID = "demo"

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to serve the page on")
	hosts := flag.String("hosts", "", "comma-separated host names the page is reached by (default: localhost, 127.0.0.1, [::1])")
	flag.Parse()
	demo.Main("jobsweb", func() error {
		dir, err := os.MkdirTemp("", "jobsweb-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return err
		}
		var names []string
		if *hosts != "" {
			names = strings.Split(*hosts, ",")
		}
		return run(context.Background(), ln, dir, names, os.Stdout)
	})
}

// A pace says how long the demo's slow parts take: the scripted subagents'
// turns and the deploy's deadline.
type pace struct {
	agents agentPace
	deploy time.Duration
}

// demoPace is the pace of `make demo-web`: slow enough to watch.
var demoPace = pace{agents: agentPace{research: 6 * time.Second, code: 25 * time.Second}, deploy: 8 * time.Second}

// run serves the demo on ln, to requests for hosts (nil: the loopback names),
// until the launcher's signals end it, writing the journal to dir.
func run(ctx context.Context, ln net.Listener, dir string, hosts []string, out io.Writer) error {
	return runAt(ctx, ln, dir, hosts, out, demoPace)
}

// runAt is run at a pace of the caller's.
func runAt(ctx context.Context, ln net.Listener, dir string, hosts []string, out io.Writer, p pace) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	path := filepath.Join(dir, "jobs.journal")
	store, err := journal.Open(path, journal.WithLogger(logger))
	if err != nil {
		return err
	}
	rec := journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)
	reg := registry.New(registry.WithRecorder(rec), registry.WithLogger(logger))
	agents, err := startAgents(ctx, store, session, p.agents)
	if err != nil {
		return err
	}
	h, err := jobhttp.New(reg, func(*http.Request) (jobs.SessionID, error) { return session, nil },
		jobhttp.WithHistory(jobhttp.StoreHistory(store)),
		jobhttp.WithJobFacts(jobhttp.StoreJobFacts(store)),
		jobhttp.WithSubagents(jobhttp.NewJournalSubagents(store, agents)),
		jobhttp.WithHosts(hosts...),
		// Every visitor of the demo is the one demo session, and each page
		// holds a roster stream and a follow per expanded row.
		jobhttp.WithMaxStreamsPerSession(32),
		jobhttp.WithLogger(logger),
	)
	if err != nil {
		return err
	}
	srv := newHTTPServer(h, logger)

	// Shutdown order: the page's streams end, the server stops, the registry
	// settles every job and the subagents end (recording the facts), then
	// the journal closes.
	shutdown := launcher.New(launcher.WithBound(jobs.DefaultTeardownBound), launcher.WithLogger(logger))
	shutdown.AddDisposer("streams", h.Close)
	shutdown.AddDisposer("server", launcher.StopServer(srv, 0))
	shutdown.AddDisposer("registry", reg.Close)
	shutdown.AddDisposer("subagents", agents.Close)
	shutdown.AddProvider("journal", store.Close)

	return shutdown.Run(ctx, func(ctx context.Context) error {
		if err := startJobs(ctx, reg, rec, p.deploy); err != nil {
			return err
		}
		fmt.Fprintf(out, "serving the jobs page on http://%s/ (Ctrl-C to stop)\n", ln.Addr())
		errc := make(chan error, 1)
		go func() { errc <- srv.Serve(ln) }()
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

// The demo server's limits. They bound plain requests and idle connections,
// never an event stream in use: a stream sets its own write deadline before
// each write (jobhttp.WithWriteTimeout, which replaces WriteTimeout for
// it) and writes a keep-alive every jobhttp.WithKeepAlive interval, and a request without
// a body stops counting against ReadTimeout once its handler runs.
const (
	// readHeaderTimeout bounds a request's headers: a client that trickles
	// them (slowloris) is dropped.
	readHeaderTimeout = 5 * time.Second
	// readTimeout bounds a whole request, body included (a kill's).
	readTimeout = 10 * time.Second
	// writeTimeout bounds a plain response: the page, the roster, a kill.
	writeTimeout = 30 * time.Second
	// idleTimeout closes a keep-alive connection that carries no request, so
	// idle connections cannot pile up descriptors and memory.
	idleTimeout = 30 * time.Second
	// maxHeaderBytes is far above what the page sends.
	maxHeaderBytes = 16 << 10
)

// newHTTPServer returns the demo's server for h, with the limits above.
func newHTTPServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// demoJobs are the demo's shell jobs: a build with coloured output and a
// progress line redrawn in place, a server that runs until killed, a ticker
// on both channels, a failing test run, and a deploy whose deadline passes.
var demoJobs = []struct {
	label, script string
	timeout       bool // the deploy's deadline passes
}{
	{"build", `b='\033[1m' g='\033[32m' y='\033[33m' c='\033[38;5;81m' o='\033[38;2;255;175;0m' z='\033[0m'
for step in fetch compile link; do printf "${b}==>${z} %s\n" "$step"
  for p in 0 25 50 75 100; do printf "\r    [%-20s] %3d%%" "$(printf '%*s' $((p/5)) '' | tr ' ' '#')" $p; sleep 0.2; done; printf "\n"; done
printf "${y}warning:${z} 1 deprecated call in \033[4mmain.go:12${z}\n" >&2
printf "${c}256-colour${z} and ${o}true colour${z} output, \033[3mitalic\033[0m too\n"
printf "${g}built ./app${z} in 3.1s\n"`, false},
	{"serve", `echo "listening on :9090"; exec sleep 3600`, false},
	{"tick", `i=0; while [ $i -lt 600 ]; do i=$((i+1)); echo "tick $i"; [ $((i % 5)) -eq 0 ] && echo "tock $i" >&2; sleep 1; done`, false},
	{"test", `printf "=== RUN   TestLogin\n\033[32m--- PASS\033[0m: TestLogin (0.01s)\n=== RUN   TestCheckout\n"; sleep 2
printf "    checkout_test.go:41: got 502, want 200\n\033[31m--- FAIL\033[0m: TestCheckout (2.00s)\n\033[1;31mFAIL\033[0m\n" >&2; exit 1`, false},
	{"deploy", `echo "deploying to staging (waits for a lock that never frees)"; exec sleep 3600`, true},
}

// startJobs starts the demo's shell jobs; a job with a deadline gets
// deadline. Each records what it runs and how it exits through rec, the
// registry's own recorder, for its job page.
func startJobs(ctx context.Context, reg *registry.Registry, rec registry.Recorder, deadline time.Duration) error {
	for _, j := range demoJobs {
		start := procjob.Start(procjob.Options{
			Command:  []string{"sh", "-c", j.script},
			Kind:     "sh",
			Label:    j.label,
			Owner:    session,
			Recorder: rec,
		})
		if j.timeout {
			start.Timeout = deadline
		}
		if _, err := reg.Start(ctx, start); err != nil {
			return err
		}
	}
	return nil
}
