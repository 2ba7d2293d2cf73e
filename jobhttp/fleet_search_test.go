package jobhttp_test

import (
	"net/http"
	"net/url"
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
