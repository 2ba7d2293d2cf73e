package jobhttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/registry"
)

// decodeStrict reads body with the generated decoder of T, which refuses a
// missing field and a key in another case, so a body that is not exactly
// the wire spec's fails.
func decodeStrict[T any](t *testing.T, what string, res *http.Response) T {
	t.Helper()
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %s is no %T: %v", what, data, v, err)
	}
	return v
}

// TestEveryBodyIsTheWireSpecs: every refusal answers a
// wire.ErrorBody, a kill a wire.KillResponse and history a list of
// wire.Interval, read back by the strict decoders generated from
// spec/wire.yaml, which the TypeScript client reads them with too.
func TestEveryBodyIsTheWireSpecs(t *testing.T) {
	store, err := journal.Open(filepath.Join(t.TempDir(), "jobs.journal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(context.Background()) })
	s := newServer(t, []jobhttp.Option{jobhttp.WithHistory(jobhttp.StoreHistory(store)), jobhttp.WithMaxStreamsPerSession(1)},
		registry.WithRecorder(journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf)))
	rec, p := s.startRecording("alice", "build", 0)
	plain, _ := s.startPlain("alice", "plain")
	json := map[string]string{"Content-Type": "application/json"}
	held := s.stream("/api/jobs/events", "alice", nil)
	held.mustNext()
	for _, tc := range []struct {
		what, method, path, session, body string
		header                            map[string]string
		status                            int
	}{
		{"no session", "GET", "/api/jobs", "", "", nil, http.StatusUnauthorized},
		{"an unknown job", "GET", "/api/jobs/6ba7b810-9dad-11d1-80b4-00c04fd430c8", "alice", "", nil, http.StatusNotFound},
		{"a malformed id", "GET", "/api/jobs/x", "alice", "", nil, http.StatusNotFound},
		{"a plain job's follow", "GET", "/api/jobs/" + plain.ID.String() + "/follow", "alice", "", nil, http.StatusConflict},
		{"a future offset", "GET", "/api/jobs/" + rec.ID.String() + "/follow?from=99", "alice", "", nil, http.StatusBadRequest},
		{"a kill that is not JSON", "POST", "/api/jobs/" + rec.ID.String() + "/kill", "alice", "reason=x", nil, http.StatusUnsupportedMediaType},
		{"a cross-site kill", "POST", "/api/jobs/" + rec.ID.String() + "/kill", "alice", "{}", map[string]string{"Content-Type": "application/json", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"a kill body in another case", "POST", "/api/jobs/" + rec.ID.String() + "/kill", "alice", `{"Reason":"x"}`, json, http.StatusBadRequest},
		{"a stream past the cap", "GET", "/api/jobs/events", "alice", "", nil, http.StatusTooManyRequests},
	} {
		res := s.request(tc.method, tc.path, tc.session, strings.NewReader(tc.body), tc.header)
		if res.StatusCode != tc.status {
			res.Body.Close()
			t.Errorf("%s: %s, want %d", tc.what, res.Status, tc.status)
			continue
		}
		if body := decodeStrict[wire.ErrorBody](t, tc.what, res); body.Error == "" {
			t.Errorf("%s: the error body says nothing", tc.what)
		}
	}
	held.res.Body.Close()

	res := s.request("POST", "/api/jobs/"+rec.ID.String()+"/kill", "alice", strings.NewReader(`{"reason":"enough"}`), json)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("kill: %s", res.Status)
	}
	kill := decodeStrict[wire.KillResponse](t, "kill", res)
	if kill.Result != wire.KillResultRequested || kill.Job.ID != rec.ID {
		t.Errorf("kill answered %+v", kill)
	}
	p.finish(jobs.JobStatusKilled, "enough")
	if _, _, err := s.reg.Wait(context.Background(), "alice", rec.ID, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	again := decodeStrict[wire.KillResponse](t, "a second kill", s.request("POST", "/api/jobs/"+rec.ID.String()+"/kill", "alice", nil, json))
	if again.Result != wire.KillResultAlreadyFinished {
		t.Errorf("a second kill answered %s, want alreadyFinished", again.Result)
	}
	ivs := decodeStrict[[]wire.Interval](t, "history", s.request("GET", "/api/history", "alice", nil, nil))
	if len(ivs) != 2 || ivs[0].JobID != rec.ID || !ivs[0].Complete || ivs[0].Status != jobs.JobStatusKilled {
		t.Errorf("history = %+v", ivs)
	}
}

// TestThePageServesItsJavaScriptNotItsSources: the page's modules are
// served as JavaScript; the TypeScript and declarations they are compiled
// from, and the compiler's config, stay out of the binary.
func TestThePageServesItsJavaScriptNotItsSources(t *testing.T) {
	s := newServer(t, nil)
	for path, want := range map[string]int{
		"/app.mjs": http.StatusOK, "/tree.mjs": http.StatusOK, "/jobs.mjs": http.StatusOK, "/wire.mjs": http.StatusOK, "/runtime.mjs": http.StatusOK,
		"/app.mts": http.StatusNotFound, "/wire.d.mts": http.StatusNotFound, "/tsconfig.json": http.StatusNotFound,
	} {
		res := s.request("GET", path, "", nil, nil)
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("GET %s: %s, want %d", path, res.Status, want)
		}
		if want == http.StatusOK && !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") {
			t.Errorf("GET %s: Content-Type %q, want JavaScript", path, res.Header.Get("Content-Type"))
		}
	}
}
