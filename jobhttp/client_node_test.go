package jobhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

// TestTheTypeScriptClientAgainstTheHandler runs the TypeScript client
// jobgen generates from spec/wire.yaml (Client of @jobgen/jobgen/wire,
// decision 0197), every route of it, in Node against a real
// handler on a loopback port: tools/ts/client_test.ts, compiled by the pinned
// tsc, asks for the roster, a job, follows (to the end, from an offset, and
// resumed after the server drops the connection), roster events, kills,
// history, the refusals 401, 403, 404, 409 and 429, and the hostile stream
// fields and Retry-After of spec/testdata/client-hostile.json, which the
// Python client reads alike (decision 0158). The script acts on
// the server through test/ routes this test adds beside the handler. It
// needs Node and `make ts-deps`; under CI=true it fails without them.
func TestTheTypeScriptClientAgainstTheHandler(t *testing.T) {
	node, script := compileClientTest(t)
	store, err := journal.Open(filepath.Join(t.TempDir(), "jobs.journal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(context.Background()) })
	reg := registry.New(registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
	h, err := jobhttp.New(reg, testSession, jobhttp.WithHistory(jobhttp.StoreHistory(store)), jobhttp.WithJobFacts(jobhttp.StoreJobFacts(store)), jobhttp.WithMaxStreamsPerSession(2))
	if err != nil {
		t.Fatal(err)
	}
	c := &clientControl{reg: reg, jobs: map[jobs.JobID]controlled{}, follows: map[net.Conn]bool{}}
	mux := http.NewServeMux()
	mux.Handle("/", c.trackFollows(h))
	mux.HandleFunc("POST /test/{action}", c.act)
	mux.HandleFunc("GET /test/bogus/api/jobs/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<p>a proxy's page</p>\n"))
	})
	mux.HandleFunc("GET /test/bogus/api/jobs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`[{"id":"not-a-uuid","name":"x-1","kind":"x","label":"","ordinal":1,"record":false,"status":"running","startedAt":1}]`))
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ConnContext = func(ctx context.Context, conn net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, conn)
	}
	srv.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Close(ctx)
		srv.Close()
		c.finishAll()
		reg.Close(ctx)
	})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, srv.URL+"/", filepath.Join("..", "spec", "testdata", "client-hostile.json"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		t.Log(line)
	}
	if err != nil {
		t.Fatalf("the client's Node test failed: %v", err)
	}
	if !strings.HasPrefix(out.String(), "ok - ") || strings.Contains(out.String(), "not ok") {
		t.Fatalf("the client's Node test ran no case or failed one")
	}
	// Every route of the spec is called by name: a route added to
	// spec/wire.yaml is a case this script lacks until it calls it.
	src, err := os.ReadFile(filepath.Join("..", "tools", "ts", "client_test.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range wire.Routes().Routes {
		method := strings.ToLower(r.Name[:1]) + r.Name[1:]
		if !strings.Contains(string(src), "."+method+"(") {
			t.Errorf("tools/ts/client_test.ts never calls the route %s (Client.%s)", r.Name, method)
		}
	}
}

// compileClientTest compiles tools/ts/client_test.ts with the pinned tsc
// into a temporary directory beside a node_modules that links the package,
// as npm does for tools/ts, and returns node and the script.
func compileClientTest(t *testing.T) (node, script string) {
	t.Helper()
	root, _ := filepath.Abs("..")
	tsc := filepath.Join(root, "tools/ts/node_modules/.bin/tsc")
	node, nodeErr := exec.LookPath("node")
	_, tscErr := os.Stat(tsc)
	_, linkErr := os.Stat(filepath.Join(root, "tools/ts/node_modules/@jobgen/jobgen/package.json"))
	if nodeErr != nil || tscErr != nil || linkErr != nil {
		msg := "the TypeScript client's test needs node and the pinned TypeScript: install Node.js, then run `make ts-deps`"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	// The script and the package are read here, so that a change to either
	// is a change to the test's inputs and go test does not replay a result.
	for _, glob := range []string{"tools/ts/client_test.ts", "generated/ts/*"} {
		files, _ := filepath.Glob(filepath.Join(root, glob))
		for _, f := range files {
			os.ReadFile(f)
		}
	}
	dir := t.TempDir()
	conf, _ := json.Marshal(map[string]any{
		"compilerOptions": map[string]any{
			"strict": true, "noUnusedLocals": true, "noUnusedParameters": true, "noPropertyAccessFromIndexSignature": true,
			"exactOptionalPropertyTypes": true, "noUncheckedIndexedAccess": true, "verbatimModuleSyntax": true,
			"target": "ES2022", "module": "ES2022", "moduleResolution": "bundler", "lib": []string{"ES2022", "DOM"}, "types": []string{},
			"skipLibCheck": true, // make ts-check checks the declarations; this build is the test's
			"rootDir":      filepath.Join(root, "tools/ts"), "outDir": dir,
		},
		"files": []string{filepath.Join(root, "tools/ts/client_test.ts"), filepath.Join(root, "tools/ts/node.d.ts")},
	})
	os.WriteFile(filepath.Join(dir, "tsconfig.json"), conf, 0o644)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "node_modules", "@jobgen"), 0o755)
	if err := os.Symlink(filepath.Join(root, "generated", "ts"), filepath.Join(dir, "node_modules", "@jobgen", "jobgen")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tsc, "-p", filepath.Join(dir, "tsconfig.json")).CombinedOutput(); err != nil {
		t.Fatalf("tsc client_test.ts: %v\n%s", err, out)
	}
	return node, filepath.Join(dir, "client_test.js")
}

type connKey struct{}

// clientControl is what the Node script asks of the server beside the
// handler: jobs it starts, appends to and finishes, and follow connections
// it drops.
type clientControl struct {
	reg *registry.Registry

	mu      sync.Mutex
	jobs    map[jobs.JobID]controlled
	follows map[net.Conn]bool // the connections of follow streams open now
}

// A controlled job is one the script started, with its owner.
type controlled struct {
	*producer
	owner jobs.SessionID
}

// trackFollows records the connection of each follow stream while it is
// open, so that drop can close it as a network would.
func (c *clientControl) trackFollows(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, ok := r.Context().Value(connKey{}).(net.Conn)
		if ok && strings.HasSuffix(r.URL.Path, "/follow") {
			c.mu.Lock()
			c.follows[conn] = true
			c.mu.Unlock()
			defer func() {
				c.mu.Lock()
				delete(c.follows, conn)
				c.mu.Unlock()
			}()
		}
		h.ServeHTTP(w, r)
	})
}

// act does what POST /test/{action} asks: start (session, label, record),
// append (job, text), finish (job), wait (job: until it settles) or drop.
func (c *clientControl) act(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id, _ := jobs.ParseJobID(q.Get("job"))
	c.mu.Lock()
	p, known := c.jobs[id]
	c.mu.Unlock()
	if !known && r.PathValue("action") != "start" && r.PathValue("action") != "drop" {
		http.Error(w, "no job "+q.Get("job")+" was started here", http.StatusBadRequest)
		return
	}
	var answer any = struct{}{}
	switch r.PathValue("action") {
	case "start":
		session := jobs.SessionID(q.Get("session"))
		snap, p, err := c.start(session, q.Get("label"), q.Get("record") == "true")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		c.mu.Lock()
		c.jobs[snap.ID] = controlled{p, session}
		c.mu.Unlock()
		answer = snap
	case "append":
		p.job.Append(q.Get("text"), jobs.AppendOptions{Channel: jobs.ChannelStdout})
	case "finish":
		p.finish(jobs.JobStatusCompleted, "done")
	case "wait":
		if _, _, err := c.reg.Wait(r.Context(), p.owner, id, 5*time.Second); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	case "drop":
		c.mu.Lock()
		for conn := range c.follows {
			conn.Close()
		}
		c.mu.Unlock()
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(answer)
}

// start starts a job that runs until the script finishes it or a kill
// cancels it: a recording job, or a plain one.
func (c *clientControl) start(session jobs.SessionID, label string, record bool) (jobs.JobSnapshot, *producer, error) {
	p := &producer{result: make(chan jobs.JobOutcome, 1)}
	common := jobs.JobStartCommon{Kind: "node", Label: label, Owner: session}
	var start jobs.JobStart = jobs.PlainJobStart{JobStartCommon: common, Run: func(context.Context, jobs.RunningJob) (jobs.Hooks, error) { return p.hooks(), nil }}
	if record {
		start = jobs.RecordingJobStart{JobStartCommon: common, Run: func(_ context.Context, job jobs.RecordingJob) (jobs.Hooks, error) {
			p.job = job
			return p.hooks(), nil
		}}
	}
	snap, err := c.reg.Start(context.Background(), start)
	return snap, p, err
}

// finishAll ends every job still running, so that the registry closes.
func (c *clientControl) finishAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.jobs {
		p.finish(jobs.JobStatusCompleted, "")
	}
}
