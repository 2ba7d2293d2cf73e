package jobhttp_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestOneHostsSearchRefusesAHostFilter(t *testing.T) {
	s := historyServer(t)
	s.startPlain("alice", "deploy")
	if code, _ := s.search("alice", url.Values{"host": {"host-a"}}); code != http.StatusBadRequest {
		t.Errorf("one host's search with a host filter: %d; want 400, the filter is a fleet view's", code)
	}
	if code, page := s.search("alice", url.Values{}); code != http.StatusOK || page.Total != 1 {
		t.Errorf("one host's search: %d, %+v; want alice's one job", code, page)
	}
}

func TestAFleetMarksItsPageAndOneHostDoesNot(t *testing.T) {
	fleet, _ := newWalkedFleet(t)
	host := newServer(t, nil)
	get := func(h http.Handler, path string) string {
		t.Helper()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", path, nil)
		req.Host = "127.0.0.1" // a name both answer for
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	if page := get(fleet, "/"); !strings.Contains(page, `<body data-view="fleet">`) {
		t.Errorf("the fleet's page is not marked as a fleet view:\n%s", page)
	}
	if page := get(host.h, "/"); strings.Contains(page, `data-view`) || !strings.Contains(page, "<body>") {
		t.Errorf("one host's page is marked:\n%s", page)
	}
	if a, b := get(fleet, "/app.mjs"), get(host.h, "/app.mjs"); a != b {
		t.Errorf("the fleet serves another app.mjs than one host")
	}
}
