package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/registry"
)

// hostMain runs one host of the fleet until ctx ends: a registry recording
// into the shared history as -name, beating its lease, serving its jobs on
// -addr to the fleet alone, with three jobs running: a ticker and a build
// of the demo session, and a ticker of the session "other".
func hostMain(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	var c common
	c.register(fs)
	name := fs.String("name", "host-a", "name of this host")
	addr := fs.String("addr", "127.0.0.1:0", "address to serve this host's jobs on")
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
	store, err := pgstore.Open(ctx, c.dsn, pgstore.WithSchema(c.schema))
	if err != nil {
		return err
	}
	defer store.Close(context.Background())
	host := jobs.JobHost{Name: jobs.HostID(*name), Incarnation: jobs.NewIncarnationID(), Address: "http://" + ln.Addr().String()}
	reg := registry.New(registry.WithRecorder(jobhistory.NewHostRecorder(store, host)))
	defer reg.Close(context.Background())
	h, err := jobhttp.New(reg, jobhttp.TrustFleet([]jobhttp.FleetKey{key}, nil))
	if err != nil {
		return err
	}
	beatCtx, stopBeat := context.WithCancel(ctx)
	var beating sync.WaitGroup
	beating.Go(func() {
		jobhistory.Heartbeat(beatCtx, store, host, jobhistory.HeartbeatOptions{Every: c.beat})
	})
	defer func() { stopBeat(); beating.Wait() }()
	for _, j := range []struct {
		owner jobs.SessionID
		label string
		lines int // 0: until killed
	}{{"demo", "ticker on " + *name, 0}, {"demo", "build on " + *name, 4}, {"other", "other's ticker on " + *name, 0}} {
		if _, err := startTicker(ctx, reg, j.owner, j.label, *name, j.lines); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "host %s serving %s\n", *name, host.Address)
	return serveUntil(ctx, &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}, ln, h.Close)
}

// startTicker starts a recording job of owner that writes a line every
// 200ms: lines of them and then completes, or until killed when lines is 0.
func startTicker(ctx context.Context, reg *registry.Registry, owner jobs.SessionID, label, host string, lines int) (jobs.JobSnapshot, error) {
	return reg.Start(ctx, jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "ticker", Label: label, Owner: owner},
		Run: func(ctx context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			done := make(chan jobs.JobOutcome, 1)
			stop := make(chan string, 1)
			go func() {
				t := time.NewTicker(200 * time.Millisecond)
				defer t.Stop()
				for n := 1; lines == 0 || n <= lines; n++ {
					job.Append(fmt.Sprintf("%s of %s: line %d on %s\n", label, owner, n, host), jobs.AppendOptions{})
					select {
					case reason := <-stop:
						done <- jobs.JobOutcome{Status: jobs.JobStatusKilled, Detail: reason}
						return
					case <-t.C:
					}
				}
				done <- jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: fmt.Sprintf("%d lines", lines)}
			}()
			return jobs.Hooks{
				Cancel: func(reason string) error {
					select {
					case stop <- reason:
					default:
					}
					return nil
				},
				Done: func() (jobs.JobOutcome, error) { return <-done, nil },
			}, nil
		},
	})
}

// demoMain starts three hosts (this program, as child processes) and the
// fleet view, prints the page's address and the hosts' process ids, and runs
// until ctx ends.
func demoMain(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	var c common
	c.register(fs)
	addr := fs.String("addr", "127.0.0.1:8090", "address to serve the fleet page on")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	named := false
	fs.Visit(func(f *flag.Flag) { named = named || f.Name == "schema" })
	if !named { // a fresh history each run, so no earlier run's hosts show lost
		c.schema = fmt.Sprintf("jobgen_fleet_demo_%d", time.Now().Unix())
	}
	os.Setenv(secretEnv, newSecret())
	key, err := fleetKey()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	peers := map[jobs.HostID]string{}
	for _, name := range []string{"host-a", "host-b", "host-c"} {
		cmd := exec.Command(self, "host", "-dsn", c.dsn, "-schema", c.schema, "-beat", c.beat.String(), "-name", name)
		cmd.Stderr = os.Stderr
		line, err := startHost(cmd)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
		peers[jobs.HostID(name)] = strings.TrimPrefix(line, "host "+name+" serving ")
		fmt.Fprintf(out, "%s (pid %d)\n", line, cmd.Process.Pid)
	}
	fmt.Fprintf(out, "history in schema %s\nopen http://%s/ ; `kill -9 PID` a host to see its jobs turn lost; Ctrl-C ends the demo\n", c.schema, ln.Addr())
	return serveView(ctx, ln, c, key, peers, out)
}

// startHost starts a host process and returns its first line, which says
// where it serves.
func startHost(cmd *exec.Cmd) (string, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "host ") {
		cmd.Process.Kill()
		cmd.Wait()
		return "", errors.Join(errors.New("it did not say where it serves"), err)
	}
	go io.Copy(io.Discard, stdout)
	return strings.TrimSpace(line), nil
}
