package jobhttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

// demoFleetKey is the key examples/fleet's hosts trust (its ID is theirs).
var demoFleetKey = jobhttp.FleetKey{ID: "demo-fleet", Secret: []byte("fleet-process-test-secret-0123456789")}

// A hostProcess is one host of examples/fleet running as a process of its own.
type hostProcess struct {
	name, addr string
	cmd        *exec.Cmd
}

// buildFleetExample builds examples/fleet once into a directory of the test's.
func buildFleetExample(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fleet")
	out, err := exec.Command("go", "build", "-o", bin, "../examples/fleet").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ../examples/fleet: %v\n%s", err, out)
	}
	return bin
}

// startHostProcess starts host name of the fleet over schema, beating every
// beat, and waits until it says where it serves.
func startHostProcess(t *testing.T, bin, dsn, schema, name string, beat time.Duration) *hostProcess {
	t.Helper()
	cmd := exec.Command(bin, "host", "-dsn", dsn, "-schema", schema, "-name", name, "-beat", beat.String())
	cmd.Env = append(os.Environ(), "JOBGEN_FLEET_SECRET="+hex.EncodeToString(demoFleetKey.Secret))
	var stderr bytes.Buffer // read only after Wait
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("%s's stderr:\n%s", name, stderr.Bytes())
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	prefix := "host " + name + " serving "
	if err != nil || !strings.HasPrefix(line, prefix) {
		t.Fatalf("host %s said %q (%v); want %q…", name, line, err, prefix)
	}
	go io.Copy(io.Discard, stdout)
	return &hostProcess{name: name, addr: strings.TrimSpace(strings.TrimPrefix(line, prefix)), cmd: cmd}
}

// byLabel returns the roster's job labelled label.
func byLabel(t *testing.T, r []fleetJob, label string) fleetJob {
	t.Helper()
	for _, j := range r {
		if j.Label == label {
			return j
		}
	}
	t.Fatalf("no job labelled %q in the roster: %+v", label, r)
	return fleetJob{}
}

// Three host processes share one PostgreSQL history; the fleet serves every
// host's jobs of a session, their intervals, and a follow proxied to the
// owning host, over HTTP and in the page, fenced by session; when one host
// is SIGKILLed its unsettled jobs turn lost and nothing is forwarded to it,
// while the other hosts' jobs run on.
func TestFleetOfThreeHostProcessesSurvivesAHostKilled(t *testing.T) {
	dsn, schema := pgtest.DSN(t), pgtest.Schema(t)
	bin := buildFleetExample(t)
	beat := 300 * time.Millisecond // a lease of 900 ms: a stalled host beats late before it looks lost
	hosts := map[string]*hostProcess{}
	for _, name := range []string{"host-a", "host-b", "host-c"} {
		hosts[name] = startHostProcess(t, bin, dsn, schema, name, beat)
	}
	ctx := browser(t)
	store, err := pgstore.Open(t.Context(), dsn, pgstore.WithSchema(schema), pgstore.WithPollInterval(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	// The page's requests are the demo session's; the test's name theirs.
	session := func(r *http.Request) (jobs.SessionID, error) {
		if s := r.Header.Get(sessionHeader); s != "" {
			return jobs.SessionID(s), nil
		}
		return "demo", nil
	}
	peers := map[jobs.HostID]string{}
	for name, hp := range hosts {
		peers[jobs.HostID(name)] = hp.addr
	}
	f, err := jobhttp.NewFleet(store, session, demoFleetKey, jobhttp.WithLease(3*beat), jobhttp.WithPeers(peers))
	if err != nil {
		t.Fatal(err)
	}
	fleet := &testFleet{server: &server{t: t, srv: httptest.NewServer(f)}, fleet: f}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		f.Close(ctx) // ends the page's streams, which the server's Close waits for
		fleet.srv.Close()
		store.Close(ctx)
	})

	// The roster: each host's ticker running and build completed, with its host.
	settled := func(r []fleetJob) bool {
		done := 0
		for _, j := range r {
			if j.Status == jobs.JobStatusCompleted {
				done++
			}
		}
		return len(r) == 6 && done == 3
	}
	r := fleet.waitRoster("demo", "three tickers and three builds settled", settled)
	for name, hp := range hosts {
		tick, build := byLabel(t, r, "ticker on "+name), byLabel(t, r, "build on "+name)
		if tick.Host.Name != jobs.HostID(name) || tick.Status != jobs.JobStatusRunning || tick.Lost || tick.Host.Address != "" {
			t.Fatalf("%s's ticker: %+v; want running on %s (at %s, not shown)", name, tick, name, hp.addr)
		}
		if build.Host.Name != jobs.HostID(name) || build.Detail != "4 lines" {
			t.Fatalf("%s's build: %+v", name, build)
		}
	}
	// The fence: another session sees only its own jobs, and not the demo's by id.
	other := fleet.waitRoster("other", "its three tickers", func(r []fleetJob) bool { return len(r) == 3 })
	for _, j := range other {
		if j.Owner != "other" {
			t.Fatalf("other's roster holds %+v", j)
		}
	}
	tickA := byLabel(t, r, "ticker on host-a")
	for _, path := range []string{"", "/follow", "/raw"} {
		res := fleet.request("GET", "/api/jobs/"+tickA.ID.String()+path, "other", nil, nil)
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Fatalf("other asking for the demo's job%s: %s, want 404", path, res.Status)
		}
	}
	// A host answers only what the fleet signed.
	res, err := http.Get(hosts["host-a"].addr + "/api/jobs")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("an unsigned request to host-a: %s, want 401", res.Status)
	}

	// A follow through the fleet is host-b's stream of its ticker.
	st := fleet.stream("/api/jobs/"+byLabel(t, r, "ticker on host-b").ID.String()+"/follow", "demo", nil)
	if ev, _ := st.nextFrame(); ev.name != "opened" {
		t.Fatalf("first frame through the fleet: %q", ev.name)
	}
	if ev, frame := st.nextFrame(); ev.name != "output" || !strings.Contains(frame.(jobs.OutputFrame).Chunks[0].Text, "line 1 on host-b") {
		t.Fatalf("output of host-b's ticker through the fleet: %q %+v", ev.name, frame)
	}
	st.res.Body.Close()

	// The intervals: one per job, the builds complete, the tickers not yet.
	ivs := fleetHistory(t, fleet, "demo")
	complete := 0
	for _, iv := range ivs {
		if iv.Complete {
			complete++
		}
	}
	if len(ivs) != 6 || complete != 3 {
		t.Fatalf("history: %d intervals, %d complete; want 6 and 3: %+v", len(ivs), complete, ivs)
	}

	// The page: every host's jobs, and host-a's ticker followed live.
	row := openOutput(t, ctx, fleet.srv.URL, tickA.ID)
	waitJS(t, ctx, "six rows", `document.querySelectorAll("li.job").length === 6`, 10*time.Second)
	waitJS(t, ctx, "host-a's ticker followed through the fleet", `document.querySelector(`+quote(row+" .output")+`).textContent.includes("line 2 on host-a")`, 10*time.Second)

	// host-c is SIGKILLed: its ticker turns lost, its build stays completed.
	if err := hosts["host-c"].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tickC := byLabel(t, r, "ticker on host-c")
	r = fleet.waitRoster("demo", "host-c's ticker lost", func(r []fleetJob) bool { j, _ := find(r, tickC.ID); return j.Lost })
	for _, j := range r {
		lost := j.Host.Name == "host-c" && j.Status == jobs.JobStatusRunning
		if j.Lost != lost {
			t.Fatalf("after host-c died: %+v; want lost only host-c's unsettled job", j)
		}
	}
	res = fleet.request("GET", "/api/jobs/"+tickC.ID.String()+"/follow", "demo", nil, nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "host-c is lost") {
		t.Fatalf("follow of host-c's ticker: %s %s; want 503 saying host-c is lost", res.Status, body)
	}
	for _, iv := range fleetHistory(t, fleet, "demo") {
		if iv.JobID == tickC.ID && (iv.Complete || !iv.Lost) {
			t.Fatalf("host-c's ticker's interval: %+v; want incomplete and lost", iv)
		}
	}
	waitJS(t, ctx, "host-c's ticker shown lost", `document.querySelector(`+quote(rowSelector(tickC.ID)+" .status")+`).textContent === "lost"`, 10*time.Second)
	waitJS(t, ctx, "host-a's ticker still followed", `document.querySelector(`+quote(row+" .output")+`).textContent.includes("line 12 on host-a")`, 10*time.Second)
	if st := run(t, ctx, chromedp.Text(rowSelector(tickA.ID)+" .status")); st != "running" {
		t.Fatalf("host-a's ticker after host-c died: %q, want running", st)
	}
}

// fleetHistory reads session's intervals from the fleet, with their placements.
func fleetHistory(t *testing.T, f *testFleet, session string) []struct {
	wire.Interval
	wire.FleetPlacement
} {
	t.Helper()
	res := f.request("GET", "/api/history", session, nil, nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var ivs []struct {
		wire.Interval
		wire.FleetPlacement
	}
	if err := json.Unmarshal(body, &ivs); err != nil {
		t.Fatalf("history %s: %v", body, err)
	}
	return ivs
}
