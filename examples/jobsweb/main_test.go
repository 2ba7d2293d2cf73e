package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A demoRun is the example running as `make demo-web` runs it, on a loopback
// port of its own.
type demoRun struct {
	base string
	out  *strings.Builder
	stop func() error
}

// startDemo runs the demo, answering for hosts, and waits until its roster
// holds every demo job.
func startDemo(t *testing.T, hosts []string) *demoRun {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &demoRun{base: "http://" + ln.Addr().String(), out: &strings.Builder{}}
	done := make(chan error, 1)
	go func() { done <- run(ctx, ln, t.TempDir(), hosts, d.out) }()
	stopped := false
	d.stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("the demo did not shut down")
			return nil
		}
	}
	t.Cleanup(func() { d.stop() })

	var list []jobs.JobSnapshot
	deadline := time.Now().Add(10 * time.Second)
	for len(list) < len(demoJobs) {
		if time.Now().After(deadline) {
			t.Fatalf("roster never held every demo job: %+v", list)
		}
		time.Sleep(20 * time.Millisecond)
		res, err := http.Get(d.base + "/api/jobs")
		if err != nil {
			continue
		}
		json.NewDecoder(res.Body).Decode(&list)
		res.Body.Close()
	}
	return d
}

// TestDemoServesTheSessionsJobsAndShutsDown runs the demo as `make demo-web`
// does, reads the roster and the page over HTTP, and stops it.
func TestDemoServesTheSessionsJobsAndShutsDown(t *testing.T) {
	d := startDemo(t, nil)
	res, err := http.Get(d.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(page), `<script type="module" src="app.mjs">`) {
		t.Fatalf("GET / did not serve the page: %.200s", page)
	}
	res, err = http.Get(d.base + "/api/history")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("history: %v %v", res.Status, err)
	}
	res.Body.Close()
	if err := d.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if !strings.Contains(d.out.String(), "serving the jobs page on "+d.base) {
		t.Errorf("the demo did not print its URL: %q", d.out.String())
	}
}

// TestDemoRefusesAReboundHost: after a DNS rebinding the attacker's name
// reaches the demo with an Origin that matches it; the demo answers only the
// names it serves, by default the loopback ones, and -hosts adds others.
func TestDemoRefusesAReboundHost(t *testing.T) {
	d := startDemo(t, []string{"localhost", "127.0.0.1", "devbox.lan"})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(d.base, "http://"))
	var list []jobs.JobSnapshot
	get := func(host string) int {
		req, _ := http.NewRequest("GET", d.base+"/api/jobs", nil)
		req.Host = host
		res, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode == http.StatusOK {
			json.NewDecoder(res.Body).Decode(&list)
		}
		return res.StatusCode
	}
	if code := get("attacker.example:" + port); code != http.StatusForbidden {
		t.Errorf("roster for a rebound Host: %d, want 403", code)
	}
	if code := get("devbox.lan:" + port); code != http.StatusOK || len(list) != len(demoJobs) {
		t.Fatalf("roster for a listed Host: %d %+v, want 200 and every demo job", code, list)
	}
	rebound := "attacker.example:" + port
	req, _ := http.NewRequest("POST", d.base+"/api/jobs/"+list[0].ID.String()+"/kill", strings.NewReader(`{"reason":"rebound"}`))
	req.Host = rebound
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://"+rebound)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("kill for a rebound Host: %s, want 403", res.Status)
	}
}
