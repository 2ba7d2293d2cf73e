package jobhttp

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

var trustKey = FleetKey{ID: "k1", Secret: []byte("0123456789abcdef0123456789abcdef")}

func signed(method, target, session string, at time.Time) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	signFleet(r, trustKey, jobs.SessionID(session), at)
	return r
}

// A host takes the session a request names only under the fleet's
// signature over the method, host, path and query, resume offset, session
// and time; a change to any of them, a stale time, another key or a missing
// part is refused, and a request without a fleet's headers is the host's
// own to judge.
func TestTrustFleetAcceptsOnlyWhatTheFleetSigned(t *testing.T) {
	own := func(r *http.Request) (jobs.SessionID, error) { return "direct", nil }
	trust := TrustFleet([]FleetKey{trustKey, {ID: "k0", Secret: []byte("an older key, still being rotated out")}}, own)
	now := time.Now()
	if s, err := trust(signed("GET", "http://10.0.0.7:8080/api/jobs/x/follow?from=3", "s1", now)); err != nil || s != "s1" {
		t.Fatalf("a signed request: %q %v", s, err)
	}
	if s, err := trust(httptest.NewRequest("GET", "/api/jobs", nil)); err != nil || s != "direct" {
		t.Fatalf("an unsigned request: %q %v; want the host's own answer", s, err)
	}
	for name, tamper := range map[string]func(r *http.Request){
		"another session": func(r *http.Request) { r.Header.Set(fleetSessionHeader, "s2") },
		"another path":    func(r *http.Request) { r.URL.Path = "/api/jobs/y/follow" },
		"another query":   func(r *http.Request) { r.URL.RawQuery = "from=0" },
		"another method":  func(r *http.Request) { r.Method = "POST" },
		"another host":    func(r *http.Request) { r.Host = "10.0.0.8:8080" },
		"a resume offset": func(r *http.Request) { r.Header.Set("Last-Event-ID", "9") },
		"another time":    func(r *http.Request) { r.Header.Set(fleetTimeHeader, strconv.FormatInt(now.Unix()-1, 10)) },
		"an unknown key":  func(r *http.Request) { r.Header.Set(fleetKeyHeader, "k9") },
		"the other key":   func(r *http.Request) { r.Header.Set(fleetKeyHeader, "k0") },
		"no signature":    func(r *http.Request) { r.Header.Del(fleetSignatureHeader) },
		"a session header only": func(r *http.Request) {
			r.Header.Del(fleetSignatureHeader)
			r.Header.Del(fleetKeyHeader)
			r.Header.Del(fleetTimeHeader)
		},
	} {
		r := signed("GET", "http://10.0.0.7:8080/api/jobs/x/follow?from=3", "s1", now)
		tamper(r)
		if s, err := trust(r); !errors.Is(err, ErrFleetSignature) {
			t.Errorf("%s: session %q, %v; want ErrFleetSignature", name, s, err)
		}
	}
	for _, at := range []time.Time{now.Add(-FleetSkew - 2*time.Second), now.Add(FleetSkew + 2*time.Second)} {
		if _, err := trust(signed("GET", "/api/jobs", "s1", at)); !errors.Is(err, ErrFleetSignature) {
			t.Errorf("signed %v from now: %v; want refused", at.Sub(now).Round(time.Second), err)
		}
	}
	if _, err := TrustFleet([]FleetKey{trustKey}, nil)(httptest.NewRequest("GET", "/api/jobs", nil)); err == nil {
		t.Error("a host trusting only its fleet answered an unsigned request")
	}
}

func TestFleetKeysMustBeLongEnough(t *testing.T) {
	for _, k := range []FleetKey{{ID: "k", Secret: []byte("short")}, {ID: "", Secret: trustKey.Secret}, {ID: "a key", Secret: trustKey.Secret}} {
		if err := checkFleetKey(k); err == nil {
			t.Errorf("key %q of %d bytes accepted", k.ID, len(k.Secret))
		}
	}
}
