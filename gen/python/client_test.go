package python

import (
	"strings"
	"testing"
)

// TestTheClientCallsEveryKindOfRoute generates the http-routes case as
// package sv and runs testdata/client/shop.py, its Client and AsyncClient
// against a fake server (httpx.MockTransport): files, a with answer and
// typed query parameters, bodies, a refusal with the spec's own record, a
// resumable union stream that ends, two named events, media with typed
// headers (one that is no canonical integer refused), an optional body
// left out. It needs tools/python/venv.sh; under CI=true it fails without.
func TestTheClientCallsEveryKindOfRoute(t *testing.T) {
	out, err := caseScript(t, "sv", "http-routes", "testdata/client/shop.py").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "ok ") {
		t.Fatalf("the shop's Python client: %v\n%s", err, out)
	}
}
