package jobhttp

import (
	"net/http"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// What ForwardJob forwards waits on a job (a task's result): over the
// fleet's own transport it has no response-header timeout, while every
// other forward keeps the 5 s one; a transport the runtime gave is used
// as it is for both.
func TestForwardedWaitsHaveNoResponseHeaderTimeout(t *testing.T) {
	own := newFleetProxy(&Fleet{}, nil, nil)
	rp, ok1 := own.rp.Transport.(*http.Transport)
	long, ok2 := own.long.Transport.(*http.Transport)
	if !ok1 || !ok2 || rp.ResponseHeaderTimeout != 5*time.Second || long.ResponseHeaderTimeout != 0 || rp == long {
		t.Errorf("the fleet's own transport: forwards %+v, waits %+v; want 5 s and none, apart", rp, long)
	}
	if own.long.Rewrite == nil || own.long.ModifyResponse == nil || own.long.ErrorHandler == nil {
		t.Error("the waiting proxy does not rewrite, relay and refuse as the other")
	}
	given := &http.Transport{ResponseHeaderTimeout: time.Second}
	theirs := newFleetProxy(&Fleet{}, nil, given)
	if theirs.rp.Transport != given || theirs.long.Transport != given {
		t.Error("a transport the runtime gave is not used as it is")
	}
}

// A request that carries a fleet's signature headers is served where it
// arrived: a request is forwarded once at most.
func TestAForwardedRequestIsNotForwardedAgain(t *testing.T) {
	r, _ := http.NewRequest(http.MethodPost, "http://host/mcp", nil)
	if forwarded(r) {
		t.Fatal("a request without the fleet's headers reads as forwarded")
	}
	for _, h := range []string{fleetSignatureHeader, fleetSessionHeader, fleetKeyHeader} {
		r, _ := http.NewRequest(http.MethodPost, "http://host/mcp", nil)
		r.Header.Set(h, "x")
		if !forwarded(r) {
			t.Errorf("a request with %s does not read as forwarded", h)
		}
		if fwd, err := (&Fleet{}).ForwardJob(r, "alice", jobs.NewJobID()); fwd != nil || err != nil {
			t.Errorf("ForwardJob of a request with %s = %v, %v; want it served here", h, fwd, err)
		}
	}
}
