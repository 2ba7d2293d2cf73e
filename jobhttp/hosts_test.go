package jobhttp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhttp"
	"github.com/jobgen/jobgen/registry"
)

// TestAReboundHostIsRefusedOnEveryRoute is a DNS rebinding: attacker.example
// now resolves to this server, so the attacker's page is same-origin with it
// by every marker the browser sends (Origin, Sec-Fetch-Site) except Host.
// Every route, reads and the kill alike, must refuse it before the session
// is even asked.
func TestAReboundHostIsRefusedOnEveryRoute(t *testing.T) {
	var asked atomic.Int64
	s := newServerAs(t, func(r *http.Request) (jobs.SessionID, error) {
		asked.Add(1)
		return testSession(r)
	}, nil)
	snap, p := s.startRecording("alice", "build", 0)
	p.job.Append("secret output\n", jobs.AppendOptions{})
	u, _ := url.Parse(s.srv.URL)
	rebound := "attacker.example:" + u.Port()
	id := snap.ID.String()
	for _, tc := range []struct{ method, path string }{
		{"GET", "/"}, {"GET", "/app.mjs"}, {"GET", "/api/jobs"}, {"GET", "/api/jobs/events"},
		{"GET", "/api/jobs/" + id}, {"GET", "/api/jobs/" + id + "/follow"}, {"GET", "/api/history"},
		{"POST", "/api/jobs/" + id + "/kill"},
	} {
		req, err := http.NewRequest(tc.method, s.srv.URL+tc.path, strings.NewReader(`{"reason":"rebound"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = rebound
		for k, v := range map[string]string{
			sessionHeader: "alice", "Origin": "http://" + rebound, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json",
		} {
			req.Header.Set(k, v)
		}
		// A served stream would never end: the timeout turns it into a failure.
		res, err := (&http.Client{Timeout: 2 * time.Second}).Do(req)
		if err != nil {
			t.Errorf("%s %s with Host %s: %v", tc.method, tc.path, rebound, err)
			continue
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "WithHosts") {
			t.Errorf("%s %s with Host %s: %s %s, want 403 naming WithHosts", tc.method, tc.path, rebound, res.Status, body)
		}
		if strings.Contains(string(body), "secret") {
			t.Errorf("%s %s with Host %s leaked output: %s", tc.method, tc.path, rebound, body)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the session function ran %d times for a foreign Host, want 0", n)
	}
	if got, _ := s.reg.Get("alice", snap.ID); got.Status != jobs.JobStatusRunning {
		t.Fatalf("job is %s after a rebound kill, want running", got.Status)
	}
}

// TestHostsDecideWhichNamesAreServed: without WithHosts only the
// loopback names are served, on any port; a list replaces them, a bare name
// matching any port and host:port that port alone.
func TestHostsDecideWhichNamesAreServed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hosts []string
		ok    []string
		no    []string
	}{{
		name: "default",
		ok:   []string{"localhost", "localhost:8080", "LocalHost:1", "localhost.:80", "127.0.0.1", "127.0.0.1:34567", "[::1]", "[::1]:8080", "[0:0::1]:9", "::1"},
		no: []string{"", "attacker.example", "attacker.example:8080", "localhost.attacker.example", "127.0.0.2:8080",
			"10.0.0.7", "localhost:", "localhost:abc", "[::1", "[::1]x", "127.0.0.1:80:80", "[::2]:8080"},
	}, {
		name:  "listed",
		hosts: []string{"Jobs.Example.com", "10.0.0.7:8443", "[fd00::7]", "::8"},
		ok:    []string{"jobs.example.com", "jobs.example.com.:80", "JOBS.example.com:443", "10.0.0.7:8443", "[fd00::7]:1", "[fd00::7]", "[::8]:80"},
		no:    []string{"localhost", "127.0.0.1:80", "10.0.0.7", "10.0.0.7:80", "example.com", "evil.jobs.example.com"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := jobhttp.New(registry.New(), testSession, jobhttp.WithHosts(tc.hosts...))
			if err != nil {
				t.Fatal(err)
			}
			for _, host := range append(tc.ok, tc.no...) {
				want := http.StatusOK
				if len(tc.no) > 0 && contains(tc.no, host) {
					want = http.StatusForbidden
				}
				req := httptest.NewRequest("GET", "/api/jobs", nil)
				req.Host = host
				req.Header.Set(sessionHeader, "alice")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != want {
					t.Errorf("Host %q: %d, want %d", host, rec.Code, want)
				}
			}
		})
	}
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

func TestNewRefusesAHostsEntryThatIsNoHost(t *testing.T) {
	for _, entry := range []string{"", "http://jobs.example", "jobs.example/path", "*.example", "jobs.example:", "[::1", "user@jobs.example"} {
		_, err := jobhttp.New(registry.New(), testSession, jobhttp.WithHosts(entry))
		if err == nil || !strings.Contains(err.Error(), "WithHosts") {
			t.Errorf("Hosts %q: %v, want an error naming WithHosts", entry, err)
		}
	}
}
