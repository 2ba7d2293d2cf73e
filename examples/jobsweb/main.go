// Command jobsweb serves the live jobs page over a registry running a few
// shell jobs for one demo session, with a file journal for the timeline.
//
//	go run ./examples/jobsweb            # http://127.0.0.1:8080/
//	go run ./examples/jobsweb -addr 127.0.0.1:9000
//	go run ./examples/jobsweb -addr :8080 -hosts devbox.lan,10.0.0.7
//
// Every request is the demo session's: a real runtime authenticates the
// caller in Options.Session instead. The page answers only to the loopback
// names unless -hosts lists the names it is reached by (jobhttp.Options.Hosts).
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
	dir, err := os.MkdirTemp("", "jobsweb-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jobsweb:", err)
		os.Exit(1)
	}
	var names []string
	if *hosts != "" {
		names = strings.Split(*hosts, ",")
	}
	if err := run(context.Background(), ln, dir, names, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "jobsweb:", err)
		os.Exit(1)
	}
}

// run serves the demo on ln, to requests for hosts (nil: the loopback names),
// until the launcher's signals end it, writing the journal to dir.
func run(ctx context.Context, ln net.Listener, dir string, hosts []string, out io.Writer) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	path := filepath.Join(dir, "jobs.journal")
	store, err := journal.Open(path, journal.WithLogger(logger))
	if err != nil {
		return err
	}
	reg := registry.New(registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)), registry.WithLogger(logger))
	h, err := jobhttp.New(jobhttp.Options{
		Registry: reg,
		Session:  func(*http.Request) (jobs.SessionID, error) { return session, nil },
		History:  jobhttp.StoreHistory(store),
		Hosts:    hosts,
		// Every visitor of the demo is the one demo session, and each page
		// holds a roster stream and a follow per expanded row.
		MaxStreamsPerSession: 32,
		Logger:               logger,
	})
	if err != nil {
		return err
	}
	srv := newHTTPServer(h, logger)

	// Shutdown order: the page's streams end, the server stops, the registry
	// settles every job (recording the facts), then the journal closes.
	shutdown := launcher.New(launcher.WithBound(jobs.DefaultTeardownBound), launcher.WithLogger(logger))
	shutdown.AddDisposer("streams", h.Close)
	shutdown.AddDisposer("server", srv.Shutdown)
	shutdown.AddDisposer("registry", reg.Close)
	shutdown.AddProvider("journal", store.Close)

	return shutdown.Run(ctx, func(ctx context.Context) error {
		if err := startJobs(ctx, reg); err != nil {
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
// each write (jobhttp Options.WriteTimeout, which replaces WriteTimeout for
// it) and writes a keep-alive every Options.KeepAlive, and a request without
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

// startJobs starts the demo's shell jobs: a build that finishes, a server that
// runs until killed, a ticker that writes to both channels, and a failing test.
func startJobs(ctx context.Context, reg *registry.Registry) error {
	for _, j := range []struct{ label, script string }{
		{"build", `for step in fetch compile link; do echo "$step"; sleep 1; done; echo "warning: 1 deprecated call" >&2; echo "built ./app"`},
		{"serve", `echo "listening on :9090"; exec sleep 3600`},
		{"tick", `i=0; while [ $i -lt 600 ]; do i=$((i+1)); echo "tick $i"; [ $((i % 5)) -eq 0 ] && echo "tock $i" >&2; sleep 1; done`},
		{"test", `echo "running 3 tests"; sleep 2; echo "--- FAIL: TestCheckout" >&2; exit 1`},
	} {
		if _, err := reg.Start(ctx, procjob.Start(procjob.Options{
			Command: []string{"sh", "-c", j.script},
			Kind:    "sh",
			Label:   j.label,
			Owner:   session,
		})); err != nil {
			return err
		}
	}
	return nil
}
