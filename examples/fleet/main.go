// Command fleet shows a fleet of runtime hosts on one PostgreSQL history:
// three host processes each run a registry whose Recorder names its host
// (jobhistory.NewHostRecorder), beat a lease into the history
// (jobhistory.Heartbeat) and serve their jobs over jobhttp, trusting the
// fleet's key alone (jobhttp.TrustFleet); one fleet view (jobhttp.Fleet)
// serves the page over the shared history, with every host's jobs of the
// caller's session, and forwards follow, kill, input and raw to the owning
// host at the address the view was given for it (-peer; the demo passes
// the addresses its hosts print), never at one the history names.
//
//	make demo-fleet                          # starts a throwaway server, runs this
//	go run ./examples/fleet demo -dsn DSN    # against a server of your own
//	go run ./examples/fleet host -dsn DSN -name host-a   # one host (JOBGEN_FLEET_SECRET)
//	go run ./examples/fleet view -dsn DSN -addr 127.0.0.1:8090 -peer host-a=http://127.0.0.1:8091
//
// Every request to the view is the demo session's unless it names another in
// the Jobgen-Demo-Session header: a real runtime authenticates the caller in
// the session function it gives jobhttp.NewFleet instead. SIGKILL a host and its unsettled jobs turn
// lost once its lease ends.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/internal/demo"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal/pgstore"
)

// secretEnv carries the fleet's key, hex-encoded, from the view to the hosts.
const secretEnv = "JOBGEN_FLEET_SECRET"

// sessionHeader names the caller's session in the demo; absent, it is "demo".
const sessionHeader = "Jobgen-Demo-Session"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fleet demo|host|view -dsn DSN [flags]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch mode, args := os.Args[1], os.Args[2:]; mode {
	case "host":
		err = hostMain(ctx, args, os.Stdout)
	case "view":
		err = viewMain(ctx, args, os.Stdout)
	case "demo":
		restore := demo.Foreground() // Ctrl-C to the demo and its hosts, not make
		err = demoMain(ctx, args, os.Stdout)
		restore()
	default:
		err = fmt.Errorf("unknown mode %q: want demo, host or view", mode)
	}
	if err != nil && demo.Code(err) != 0 {
		fmt.Fprintf(os.Stderr, "fleet %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// common are the flags every mode takes.
type common struct {
	dsn, schema string
	beat        time.Duration
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.dsn, "dsn", os.Getenv("JOBGEN_TEST_POSTGRES"), "PostgreSQL DSN of the shared history")
	fs.StringVar(&c.schema, "schema", "jobgen_fleet", "schema of the history")
	fs.DurationVar(&c.beat, "beat", time.Second, "how often a host beats; its lease is three beats")
}

func (c *common) check() error {
	if c.dsn == "" {
		return errors.New("-dsn is required (or JOBGEN_TEST_POSTGRES; `make demo-fleet` starts a server)")
	}
	return nil
}

// fleetKey reads the fleet's key from the environment.
func fleetKey() (jobhttp.FleetKey, error) {
	secret, err := hex.DecodeString(os.Getenv(secretEnv))
	if err != nil || len(secret) < 32 {
		return jobhttp.FleetKey{}, fmt.Errorf("%s must hold at least 32 bytes, hex-encoded", secretEnv)
	}
	return jobhttp.FleetKey{ID: "demo-fleet", Secret: secret}, nil
}

// newSecret returns a fresh key, hex-encoded, for secretEnv.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// demoSession is the view's Session function: the header's session, else "demo".
func demoSession(r *http.Request) (jobs.SessionID, error) {
	if s := r.Header.Get(sessionHeader); s != "" {
		return jobs.SessionID(s), nil
	}
	return "demo", nil
}

// viewMain serves the fleet view until ctx ends.
func viewMain(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	var c common
	c.register(fs)
	addr := fs.String("addr", "127.0.0.1:8090", "address to serve the fleet page on")
	peers := peerFlag{}
	fs.Var(peers, "peer", "a host the view forwards to, NAME=URL (the base URL its wire serves on); repeat for each host")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	key, err := fleetKey()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	return serveView(ctx, ln, c, key, peers, out)
}

// A peerFlag collects -peer NAME=URL: where the view forwards a host's
// jobs' requests. The addresses the hosts' registrations name are not used:
// the operator says where each host is.
type peerFlag map[jobs.HostID]string

func (p peerFlag) String() string { return fmt.Sprint(map[jobs.HostID]string(p)) }

func (p peerFlag) Set(v string) error {
	name, addr, ok := strings.Cut(v, "=")
	if !ok || name == "" || addr == "" {
		return fmt.Errorf("%q: want NAME=URL", v)
	}
	p[jobs.HostID(name)] = addr
	return nil
}

// serveView serves a Fleet over the history c names on ln until ctx ends,
// forwarding to peers.
func serveView(ctx context.Context, ln net.Listener, c common, key jobhttp.FleetKey, peers map[jobs.HostID]string, out io.Writer) error {
	store, err := pgstore.Open(ctx, c.dsn, pgstore.WithSchema(c.schema), pgstore.WithPollInterval(100*time.Millisecond))
	if err != nil {
		return err
	}
	defer store.Close(context.Background())
	f, err := jobhttp.NewFleet(store, demoSession, key, jobhttp.WithLease(3*c.beat), jobhttp.WithPeers(peers),
		jobhttp.WithJobFacts(jobhttp.StoreJobFacts(store)))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(out, "fleet view serving http://%s/\n", ln.Addr())
	return serveUntil(ctx, srv, ln, f.Close)
}

// serveUntil serves srv on ln until ctx ends, then closes what serves and srv.
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener, closeHandler func(context.Context) error) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	closeHandler(shut) // ends the streams, so Shutdown need not wait for them
	if err := srv.Shutdown(shut); err != nil {
		return err
	}
	return nil
}
