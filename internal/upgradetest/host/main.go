// Command host is one runtime host of the rolling-upgrade test
// (internal/upgradetest): a registry recording into a shared PostgreSQL
// history with its host stamped on each registration, heartbeats, the wire
// (jobhttp, trusting the fleet's key), a subagent manager whose children's
// turns end at once, and a control API the test drives it by. The test
// builds it twice, from this module's vocabulary and from a newer one (an
// overlay of the generated packages, build tag evolved), and runs the two
// builds side by side on one history.
//
//	host -dsn DSN -schema S -name web-1 -key SECRET      a host; prints "listening URL"
//	host -dsn DSN -schema S -read                        the history as this build reads it, as JSON
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/registry"
	"github.com/jobgen/jobgen/subagent"
)

func main() {
	dsn := flag.String("dsn", "", "the PostgreSQL history's DSN")
	schema := flag.String("schema", "", "its schema")
	name := flag.String("name", "", "the host's name")
	key := flag.String("key", "", "the fleet key's secret (32 bytes or more)")
	read := flag.Bool("read", false, "print the history as this build reads it and exit")
	flag.Parse()
	ctx := context.Background()
	store, err := pgstore.Open(ctx, *dsn, pgstore.WithSchema(*schema))
	if err != nil {
		fail(err)
	}
	if *read {
		err = readHistory(ctx, store, os.Stdout)
	} else {
		err = serve(ctx, store, jobs.HostID(*name), jobhttp.FleetKey{ID: "upgrade", Secret: []byte(*key)})
	}
	if cerr := store.Close(ctx); err == nil {
		err = cerr
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "host:", err)
	os.Exit(1)
}

// A host is one run of the host: what the control API drives.
type host struct {
	store *pgstore.Store
	reg   *registry.Registry
	svc   *subagent.Service
	lead  *subagent.QueueAgent // the parent of every child, session "lead" on every host
}

// serve runs the host until SIGTERM, then shuts it down in order.
func serve(ctx context.Context, store *pgstore.Store, name jobs.HostID, key jobhttp.FleetKey) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	me := jobs.JobHost{Name: name, Incarnation: jobs.NewIncarnationID(), Address: "http://" + ln.Addr().String()}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h := &host{store: store, reg: registry.New(registry.WithRecorder(jobhistory.NewHostRecorder(store, me)))}
	h.svc = subagent.New(subagent.WithStore(store), subagent.WithLogger(log), subagent.WithHost(subagent.HostFunc(h.materialize)))
	if _, err := h.svc.RegisterProvider(subagent.Continuable("worker", nil)); err != nil {
		return err
	}
	h.lead = subagent.NewQueueAgent("lead", nil, func(context.Context, []subagents.Message) (string, error) { return "", nil })
	if _, err := h.svc.Attach(h.lead); err != nil {
		return err
	}
	wire, err := jobhttp.New(h.reg, jobhttp.TrustFleet([]jobhttp.FleetKey{key}, nil), jobhttp.WithLogger(log))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/", wire)
	mux.HandleFunc("POST /control/job", h.startJob)
	mux.HandleFunc("POST /control/child", h.startChild)
	mux.HandleFunc("POST /control/followup", h.followup)
	mux.HandleFunc("POST /control/note", h.note)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	beat, stopBeat := context.WithCancel(ctx)
	beaten := make(chan struct{})
	go func() {
		defer close(beaten)
		jobhistory.Heartbeat(beat, store, me, jobhistory.HeartbeatOptions{Every: 200 * time.Millisecond, Lease: 3 * time.Second, Logger: log})
	}()
	fmt.Printf("listening %s\n", me.Address)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	down, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	stopBeat()
	<-beaten
	wire.Close(down)
	srv.Shutdown(down)
	if err := h.svc.Close(down); err != nil {
		return err
	}
	return h.reg.Close(down)
}

// materialize makes each residency of a child an agent whose turn ends at
// once, as this build ends a turn (turnEnd), or, for a message asking
// "wait", only when the host stops: a turn a crash interrupts.
func (h *host) materialize(_ context.Context, c subagent.Child, in subagent.Inbox) (subagent.Agent, error) {
	return subagent.NewQueueAgent(c.ID, in, func(ctx context.Context, msgs []subagents.Message) (string, error) {
		for _, m := range msgs {
			for _, b := range m.Content {
				if b.Text == "wait" {
					<-ctx.Done()
					return "", ctx.Err()
				}
			}
		}
		return "done", turnEnd()
	}), nil
}

// startJob starts a recording job of session that writes a line and
// settles completed after ms milliseconds (or killed, when asked to stop).
func (h *host) startJob(w http.ResponseWriter, r *http.Request) {
	ms, _ := strconv.Atoi(r.FormValue("ms"))
	stop := make(chan struct{})
	snap, err := h.reg.Start(r.Context(), jobs.RecordingJobStart{
		JobStartCommon: jobs.JobStartCommon{Kind: "work", Label: r.FormValue("label"), Owner: jobs.SessionID(r.FormValue("session"))},
		Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			go func() {
				job.Append("working\n", jobs.AppendOptions{})
				select {
				case <-time.After(time.Duration(ms) * time.Millisecond):
					job.Settle(jobs.JobOutcome{Status: jobs.JobStatusCompleted, Detail: "done"}, nil)
				case <-stop:
					job.Settle(jobs.JobOutcome{Status: jobs.JobStatusKilled, Detail: "stopped"}, nil)
				}
			}()
			return jobs.Hooks{Cancel: func(string) error { close(stop); return nil }}, nil
		},
	})
	answer(w, map[string]string{"id": snap.ID.String()}, err)
}

// startChild starts continuable child child of the lead.
func (h *host) startChild(w http.ResponseWriter, r *http.Request) {
	id, _, err := h.svc.StartContinuable(r.Context(), subagent.ContinuableSpec{
		Provider: "worker", Label: "upgrade", ChildID: jobs.SessionID(r.FormValue("child")), Parent: h.lead, Prompt: text("begin"),
	})
	answer(w, map[string]string{"child": string(id)}, err)
}

// followup sends child a follow-up from the lead: a cold resume when the
// child is not resident here.
func (h *host) followup(w http.ResponseWriter, r *http.Request) {
	id, err := h.svc.Followup(r.Context(), h.lead, jobs.SessionID(r.FormValue("child")), text(r.FormValue("text")), subagent.FollowupOptions{})
	answer(w, map[string]string{"message": id.String()}, err)
}

// note appends a job/noted fact for a job, when this build knows the fact.
func (h *host) note(w http.ResponseWriter, r *http.Request) {
	err := writeNote(r.Context(), h.store, jobs.SessionID(r.FormValue("session")), r.FormValue("job"))
	answer(w, map[string]string{}, err)
}

func text(s string) []subagents.ContentBlock {
	return []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: s}}
}

// answer writes v as JSON, or err as a 409 with its text.
func answer(w http.ResponseWriter, v any, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
