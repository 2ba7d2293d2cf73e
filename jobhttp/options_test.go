package jobhttp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/registry"
)

func TestNewRequiresARegistryAndASessionFunction(t *testing.T) {
	if _, err := jobhttp.New(nil, testSession); err == nil || !strings.Contains(err.Error(), "registry is required") {
		t.Errorf("New without a registry: %v, want an error saying the registry is required", err)
	}
	if _, err := jobhttp.New(registry.New(), nil); err == nil || !strings.Contains(err.Error(), "session function is required") {
		t.Errorf("New without a session function: %v, want an error saying it is required", err)
	}
}

// An option refuses a value the handler cannot serve with, and New says
// which option and which value, instead of running with a default the
// caller did not ask for.
func TestNewRefusesAnOptionsValueNamingTheOption(t *testing.T) {
	for _, tc := range []struct {
		opt  jobhttp.Option
		want string
	}{
		{jobhttp.WithMaxStreamsPerSession(0), "WithMaxStreamsPerSession(0)"},
		{jobhttp.WithWriteTimeout(0), "WithWriteTimeout(0s)"},
		{jobhttp.WithKeepAlive(-time.Second), "WithKeepAlive(-1s)"},
		{jobhttp.WithHosts("jobs.example.com", "http://jobs.example.com/"), `WithHosts: "http://jobs.example.com/"`},
	} {
		_, err := jobhttp.New(registry.New(), testSession, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New with a bad option: %v, want an error naming %s", err, tc.want)
		}
	}
}

// Without options a handler serves the loopback names only, and a nil
// option (a conditional left out of a list) is no option.
func TestNewWithoutOptionsAnswersTheLoopbackNames(t *testing.T) {
	h, err := jobhttp.New(registry.New(), func(*http.Request) (jobs.SessionID, error) { return "alice", nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]int{"localhost:8080": http.StatusOK, "jobs.example.com": http.StatusForbidden} {
		req := httptest.NewRequest(http.MethodGet, "/api/jobs", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("GET /api/jobs for Host %s: %d, want %d", host, rec.Code, want)
		}
	}
}
