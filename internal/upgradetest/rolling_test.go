package upgradetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/breaking"
	"github.com/jobgen/jobgen/gen/gentest"
	"github.com/jobgen/jobgen/gen/golang"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal/pgstore"
	"github.com/jobgen/jobgen/journal/pgstore/pgtest"
)

var fleetKey = jobhttp.FleetKey{ID: "upgrade", Secret: []byte("0123456789abcdef0123456789abcdef")}

// TestRollingUpgradeOfHostsOnOneHistory runs two hosts of this build (A) on
// one PostgreSQL history under a fleet of this build, then upgrades them one
// by one to a build of the evolved vocabulary (B, evolve_test.go) while jobs
// run and the fleet is read, with a crash of an upgraded host in the middle
// of a subagent's turn. It checks that:
//
//   - breaking compares the two vocabularies as a rolling upgrade needs:
//     nothing breaks backward, and the version, enum value and variant added
//     break forward;
//   - no fact was refused or lost: B's strict decoders read every record of
//     the history, A's tolerant readers find nothing damaged, and every job
//     settled;
//   - every job shows in the fleet (of A, reading B's registrations in part)
//     and in the history as each build reads it;
//   - jobgen journal check passes under B's specs and, under A's, reports
//     what it kept without failing;
//   - a cold resume on a host of A refuses a child whose history a host of
//     B wrote a message-accepted v2 into, naming the fact and the build, and
//     a host of B resumes it.
func TestRollingUpgradeOfHostsOnOneHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two hosts and runs them against PostgreSQL")
	}
	dsn, schema := pgtest.DSN(t), pgtest.Schema(t)
	b := buildBuilds(t)
	checkBreaking(t, b)

	ctx := context.Background()
	store, err := pgstore.Open(ctx, dsn, pgstore.WithSchema(schema), pgstore.WithPollInterval(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(ctx)
	fleet, err := jobhttp.NewFleet(store, func(r *http.Request) (jobs.SessionID, error) { return jobs.SessionID(r.Header.Get("X-Session")), nil }, fleetKey,
		jobhttp.WithLease(3*time.Second),
	)
	if err != nil {
		t.Fatal(err)
	}
	fleetSrv := httptest.NewServer(fleet)
	defer func() {
		fleetSrv.Close()
		fleet.Close(ctx)
	}()
	f := &fleetReader{t: t, url: fleetSrv.URL, sessions: []string{"s1", "s2"}, seen: map[string]bool{}}
	stopReading := f.readWhile()

	var started []startedJob
	run := func(h *hostProc, session string, ms int) startedJob {
		t.Helper()
		var out struct{ ID string }
		h.control("job", url.Values{"session": {session}, "label": {h.build + " work on " + h.name}, "ms": {fmt.Sprint(ms)}}, &out)
		j := startedJob{id: out.ID, session: session, build: h.build}
		started = append(started, j)
		return j
	}
	steps := 0

	web1, web2 := startHost(t, b.a, "A", "web-1", dsn, schema), startHost(t, b.a, "A", "web-2", dsn, schema)
	run(web1, "s1", 200)
	run(web1, "s1", 30_000) // still running at the upgrade: torn down, settled killed
	run(web2, "s2", 200)
	run(web2, "s1", 30_000)
	web1.control("child", url.Values{"child": {"c1"}}, nil)
	f.waitFor(started, "the jobs of the two hosts of A")

	// Upgrade web-1: stop it, start it as B. Its new jobs are registered as
	// job/registered of the version after this build's newest, which the fleet (A) reads in part.
	web1.stop()
	web1 = startHost(t, b.b, "B", "web-1", dsn, schema)
	steps++
	noted := run(web1, "s1", 200)
	run(web1, "s2", 200)
	web1.control("note", url.Values{"session": {"s1"}, "job": {noted.id}}, nil)
	web1.control("followup", url.Values{"child": {"c1"}, "text": {"resumed by B"}}, nil) // B resumes A's history
	f.waitFor(started, "the jobs of web-1 of B")
	f.waitSettled(started[4:])

	// A turn of c1 on web-1 of B, which crashes while the turn runs: c1's
	// stream ends with a message-accepted v2 after its last checkpoint.
	web1.control("followup", url.Values{"child": {"c1"}, "text": {"wait"}}, nil)
	time.Sleep(300 * time.Millisecond)
	web1.crash()
	web1 = startHost(t, b.b, "B", "web-1", dsn, schema)
	steps++

	// web-2 is still A: it must not resume c1 from what it can read.
	err = web2.try("followup", url.Values{"child": {"c1"}, "text": {"to A"}})
	if err == nil || !strings.Contains(err.Error(), "subagent/message-accepted v2 (a version this build does not know)") || !strings.Contains(err.Error(), "this build (") {
		t.Fatalf("a follow-up of c1 on web-2 of A: %v; want it refused, naming subagent/message-accepted v2 and this build", err)
	}

	// Upgrade web-2; now every host is B, and c1 resumes.
	web2.stop()
	web2 = startHost(t, b.b, "B", "web-2", dsn, schema)
	steps++
	run(web2, "s2", 200)
	web2.control("followup", url.Values{"child": {"c1"}, "text": {"resumed by B after the crash"}}, nil)
	f.waitFor(started, "every job")
	f.waitSettled(started)
	web1.stop()
	web2.stop()
	if err := stopReading(); err != nil {
		t.Fatal(err)
	}

	kinds, counts := fleet.Unknown()
	fleetUnknown := 0
	for _, n := range counts {
		fleetUnknown += n
	}
	if !slices.Contains(kinds, codec.FactKind{Type: "job/registered", V: 4}) && !slices.Contains(kinds, codec.FactKind{Type: "job/registered", V: 3}) || !slices.Contains(kinds, codec.FactKind{Type: "job/noted", V: 1}) {
		t.Errorf("the fleet of A counted %v %v; want the registrations and the note B wrote", kinds, counts)
	}

	// The history as each build reads it.
	readA, readB := readWith(t, b.a, dsn, schema), readWith(t, b.b, dsn, schema)
	if readB.Refused != 0 || readB.Damaged != 0 || readB.Unknown != 0 {
		t.Errorf("B reads the history: %+v; want every record read strictly", readB.Counts())
	}
	if readA.Damaged != 0 || readA.Unknown == 0 || readA.Refused != readA.Unknown {
		t.Errorf("A reads the history: %+v; want B's facts kept as unknown, and nothing damaged", readA.Counts())
	}
	for name, r := range map[string]Reading{"A": readA, "B": readB} {
		for _, j := range started {
			iv, ok := r.Interval(j.id)
			switch {
			case !ok:
				t.Errorf("the history as %s reads it lacks job %s (%s)", name, j.id, j.build)
			case !iv.Complete:
				t.Errorf("the history as %s reads it: job %s did not settle", name, j.id)
			case name == "A" && j.build == "B" && !iv.Partial:
				t.Errorf("the history as A reads it: job %s, registered by B, is not partial", j.id)
			case name == "B" && iv.Partial:
				t.Errorf("the history as B reads it: job %s is partial", j.id)
			}
		}
	}

	// journal check under B's specs passes; under A's (built in) it reports.
	journal := dsn + "&schema=" + url.QueryEscape(schema)
	if !strings.Contains(dsn, "?") {
		journal = dsn + "?schema=" + url.QueryEscape(schema)
	}
	code, stdout, stderr := runJobgen(t, b.jobgen, "journal", "check", "--spec", filepath.Join(b.specs, "jobs.yaml"), "--spec", filepath.Join(b.specs, "subagents.yaml"), journal)
	if code != 0 || !strings.Contains(stdout, "intact") || strings.Contains(stderr, "kept") {
		t.Errorf("journal check under B's specs: exit %d\n%s%s\nwant intact and nothing kept", code, stdout, stderr)
	}
	code, stdout, stderr = runJobgen(t, b.jobgen, "journal", "check", journal)
	if code != 0 || !strings.Contains(stdout, "intact") || !strings.Contains(stderr, "kept") || !strings.Contains(stderr, "job/noted v1 (1)") {
		t.Errorf("journal check under A's specs: exit %d\n%s%s\nwant intact, with what it kept reported", code, stdout, stderr)
	}
	t.Logf("rolling upgrade: %d jobs (%d registered by B), %d records, %d upgrade steps (one a crash); A's readers kept %d unknown facts (%s), its fleet counted %d; B refused %d",
		len(started), countBuild(started, "B"), readB.Records, steps, readA.Unknown, readA.Kinds, fleetUnknown, readB.Refused)
}

// builds are the two host binaries, the jobgen of this build, and the
// directory of the evolved specs.
type builds struct {
	a, b, jobgen string
	specs        string
	oldJobs      []byte // spec/jobs.yaml and spec/subagents.yaml, as A has them
	oldSubagents []byte
}

// buildBuilds builds host A from the module as it is, host B from the
// module with generated/jobs and generated/subagents replaced (an overlay)
// by what jobgen generates from the evolved specs, and jobgen.
func buildBuilds(t *testing.T) builds {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b := builds{a: filepath.Join(dir, "hostA"), b: filepath.Join(dir, "hostB"), jobgen: filepath.Join(dir, "jobgen"), specs: filepath.Join(dir, "specs")}
	b.oldJobs, b.oldSubagents = readFile(t, filepath.Join(root, "spec/jobs.yaml")), readFile(t, filepath.Join(root, "spec/subagents.yaml"))
	newJobs, newSubagents := evolveJobs(t, b.oldJobs), evolveSubagents(t, b.oldSubagents)
	gentest.WriteFile(t, filepath.Join(b.specs, "jobs.yaml"), newJobs)
	gentest.WriteFile(t, filepath.Join(b.specs, "subagents.yaml"), newSubagents)

	files := fstest.MapFS{"jobs.yaml": {Data: newJobs}, "subagents.yaml": {Data: newSubagents}}
	overlay := map[string]string{}
	for _, name := range []string{"jobs", "subagents"} {
		r, err := gen.LoadFS(files, name+".yaml", files[name+".yaml"].Data)
		if err != nil {
			t.Fatalf("the evolved %s.yaml: %v", name, err)
		}
		out, err := golang.Emit(r)
		if err != nil {
			t.Fatal(err)
		}
		existing, _ := filepath.Glob(filepath.Join(root, "generated", name, "*.go"))
		for _, p := range existing {
			overlay[p] = "" // gone, unless generated again below
		}
		for _, f := range out {
			p := filepath.Join(dir, "overlay", f.Path)
			gentest.WriteFile(t, p, f.Content)
			overlay[filepath.Join(root, "generated", f.Path)] = p
		}
	}
	ov, _ := json.Marshal(map[string]any{"Replace": overlay})
	gentest.WriteFile(t, filepath.Join(dir, "overlay.json"), ov)

	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i, args := range [][]string{
		{"build", "-o", b.a, "./internal/upgradetest/host"},
		{"build", "-tags", "evolved", "-overlay", filepath.Join(dir, "overlay.json"), "-o", b.b, "./internal/upgradetest/host"},
		{"build", "-o", b.jobgen, "./cmd/jobgen"},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("go", args...)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// checkBreaking: the evolved vocabulary breaks nothing backward (its
// history reads as the new versions, through the declarations), and breaks
// forward exactly where a rolling upgrade must upgrade readers first.
func checkBreaking(t *testing.T, b builds) {
	t.Helper()
	load := func(jobsYAML, subagentsYAML []byte) []*gen.Spec {
		files := fstest.MapFS{"jobs.yaml": {Data: jobsYAML}, "subagents.yaml": {Data: subagentsYAML}}
		var out []*gen.Spec
		for _, name := range []string{"jobs.yaml", "subagents.yaml"} {
			r, err := gen.LoadFS(files, name, files[name].Data)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r.Spec())
		}
		return out
	}
	old := load(b.oldJobs, b.oldSubagents)
	new := load(readFile(t, filepath.Join(b.specs, "jobs.yaml")), readFile(t, filepath.Join(b.specs, "subagents.yaml")))
	pairs := []breaking.Pair{{Old: old[0], New: new[0]}, {Old: old[1], New: new[1]}}
	rules := func(mode breaking.Mode) []string {
		var out []string
		for _, r := range breaking.CompareAll(pairs, breaking.WithMode(mode)) {
			for _, f := range r.Findings {
				if f.Rule != gen.RuleAllowanceUnused {
					out = append(out, string(f.Rule)+" "+f.Path)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	if got := rules(breaking.Backward); len(got) != 0 {
		t.Errorf("the evolved vocabulary breaks backward: %v", got)
	}
	got := strings.Join(rules(breaking.Full), "\n")
	for _, want := range []string{"ENUM_VALUE_ADDED enums.StopReason.values.handedOff", "FACT_VERSION_ADDED facts.job/registered.versions.v", "FACT_VERSION_ADDED facts.subagent/message-accepted.versions.v2", "VARIANT_ADDED unions.FollowFrame.variants.NoteFrame"} {
		if !strings.Contains(got, want) {
			t.Errorf("breaking --mode full lacks %s:\n%s", want, got)
		}
	}
}

// A hostProc is a running host process.
type hostProc struct {
	t           *testing.T
	build, name string
	url         string
	cmd         *exec.Cmd
	stderr      *bytes.Buffer
}

func startHost(t *testing.T, bin, build, name, dsn, schema string) *hostProc {
	t.Helper()
	h := &hostProc{t: t, build: build, name: name, stderr: &bytes.Buffer{}}
	h.cmd = exec.Command(bin, "-dsn", dsn, "-schema", schema, "-name", name, "-key", string(fleetKey.Secret))
	h.cmd.Stderr = h.stderr
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		h.cmd.Process.Kill()
		h.cmd.Wait()
		t.Fatalf("host %s (%s) did not start: %q %v\n%s", name, build, line, err, h.stderr)
	}
	h.url = addr
	t.Cleanup(func() {
		if h.cmd.ProcessState == nil {
			h.cmd.Process.Kill()
			h.cmd.Wait()
		}
	})
	return h
}

// stop stops the host as an operator does, SIGTERM, and waits for it.
func (h *hostProc) stop() {
	h.t.Helper()
	h.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			h.t.Fatalf("host %s (%s) stopped with %v\n%s", h.name, h.build, err, h.stderr)
		}
	case <-time.After(20 * time.Second):
		h.cmd.Process.Kill()
		h.t.Fatalf("host %s (%s) did not stop\n%s", h.name, h.build, h.stderr)
	}
}

// crash kills the host where it stands.
func (h *hostProc) crash() {
	h.cmd.Process.Kill()
	h.cmd.Wait()
}

// control calls the host's control API, failing t on a refusal, and
// decodes the answer into out (when not nil).
func (h *hostProc) control(what string, args url.Values, out any) {
	h.t.Helper()
	body, err := h.call(what, args)
	if err != nil {
		h.t.Fatalf("%s on %s (%s): %v\n%s", what, h.name, h.build, err, h.stderr)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			h.t.Fatalf("%s on %s: %s: %v", what, h.name, body, err)
		}
	}
}

// try calls the host's control API and returns its refusal.
func (h *hostProc) try(what string, args url.Values) error {
	_, err := h.call(what, args)
	return err
}

func (h *hostProc) call(what string, args url.Values) ([]byte, error) {
	res, err := http.PostForm(h.url+"/control/"+what, args)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", res.Status, bytes.TrimSpace(body))
	}
	return body, nil
}

// A startedJob is a job the test started, and the build of its host.
type startedJob struct {
	id, session, build string
}

func countBuild(js []startedJob, build string) int {
	n := 0
	for _, j := range js {
		if j.build == build {
			n++
		}
	}
	return n
}

// A fleetReader reads the fleet's rosters the whole time, as an operator's
// page does, and remembers every job it saw and its status.
type fleetReader struct {
	t        *testing.T
	url      string
	sessions []string

	mu     sync.Mutex
	seen   map[string]bool
	status map[string]string
	err    error
	reads  int
}

// rosterJob is what the test reads of a roster entry.
type rosterJob struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Kind   string `json:"kind"`
}

// readWhile reads the rosters every 50 ms until the returned func is
// called, which returns the first failure: a refusal, or a job that
// vanished from the roster after it showed.
func (f *fleetReader) readWhile() func() error {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			f.readOnce()
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return func() error {
		close(stop)
		<-done
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.reads == 0 {
			return fmt.Errorf("the fleet was never read")
		}
		return f.err
	}
}

func (f *fleetReader) readOnce() {
	status := map[string]string{}
	for _, s := range f.sessions {
		req, _ := http.NewRequest("GET", f.url+"/api/jobs", nil)
		req.Header.Set("X-Session", s)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			f.fail(err)
			return
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var roster []rosterJob
		if res.StatusCode != http.StatusOK || json.Unmarshal(body, &roster) != nil {
			f.fail(fmt.Errorf("the fleet's roster of %s: %s: %s", s, res.Status, body))
			return
		}
		for _, j := range roster {
			status[j.ID] = j.Status
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	for id := range f.seen {
		if _, ok := status[id]; !ok && f.err == nil {
			f.err = fmt.Errorf("job %s vanished from the fleet's roster after it showed", id)
		}
	}
	for id := range status {
		f.seen[id] = true
	}
	f.status = status
}

func (f *fleetReader) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

// waitFor waits until the fleet's rosters show every job of js.
func (f *fleetReader) waitFor(js []startedJob, what string) {
	f.t.Helper()
	f.wait(what, func(status map[string]string) bool {
		for _, j := range js {
			if _, ok := status[j.id]; !ok {
				return false
			}
		}
		return true
	})
}

// waitSettled waits until the fleet shows every job of js settled.
func (f *fleetReader) waitSettled(js []startedJob) {
	f.t.Helper()
	f.wait("the jobs settled", func(status map[string]string) bool {
		for _, j := range js {
			if s := status[j.id]; s == "" || s == string(jobs.JobStatusRunning) || s == string(jobs.JobStatusStopping) {
				return false
			}
		}
		return true
	})
}

func (f *fleetReader) wait(what string, ok func(map[string]string) bool) {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		f.mu.Lock()
		status, err := f.status, f.err
		f.mu.Unlock()
		if err != nil {
			f.t.Fatal(err)
		}
		if ok(status) {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the fleet never showed %s: %v", what, status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func readWith(t *testing.T, bin, dsn, schema string) Reading {
	t.Helper()
	out, err := exec.Command(bin, "-dsn", dsn, "-schema", schema, "-read").Output()
	if err != nil {
		t.Fatalf("%s -read: %v", bin, err)
	}
	var r Reading
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s -read: %s: %v", bin, out, err)
	}
	return r
}

func runJobgen(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
