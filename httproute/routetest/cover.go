package routetest

import (
	"net/http"
	"strings"
	"sync"

	"github.com/jobgen/jobgen/httproute"
)

// A Coverage is a handler that notes which routes of a table its requests
// reached, so a test of a client (the generated ones: spec/README.md,
// "Clients") can say it called every route, the spec's new ones included,
// without a list of its own. A request is the route the handler would
// match: its method, and the route whose path matches with the most
// literal segments; a files route is reached at its path or below it.
type Coverage struct {
	next  http.Handler
	table httproute.Table
	mu    sync.Mutex
	hit   map[string]bool
}

// Cover returns a Coverage that serves next, which serves table.
func Cover(table httproute.Table, next http.Handler) *Coverage {
	return &Coverage{next: next, table: table, hit: map[string]bool{}}
}

// ServeHTTP notes the route r reaches and serves it.
func (c *Coverage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rt := Reached(c.table, r.Method, r.URL.EscapedPath()); rt != nil {
		c.mu.Lock()
		c.hit[rt.Name] = true
		c.mu.Unlock()
	}
	c.next.ServeHTTP(w, r)
}

// Missing names the routes of the table no request reached, in table order.
func (c *Coverage) Missing() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range c.table.Routes {
		if !c.hit[r.Name] {
			out = append(out, r.Name)
		}
	}
	return out
}

// Reached is the route of table a request of method to path (escaped, as
// on the wire: an escaped slash is within a segment) reaches (HEAD
// as GET), or nil for none.
func Reached(table httproute.Table, method, path string) *httproute.Route {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var best *httproute.Route
	bestLiterals := -2
	for i := range table.Routes {
		r := &table.Routes[i]
		if r.Method != method {
			continue
		}
		pat := strings.Split(strings.TrimPrefix(r.Path, "/"), "/")
		files := r.Answer == httproute.AnswerFiles
		if len(pat) != len(segs) && !(files && len(segs) >= len(pat)) {
			continue
		}
		literals, ok := 0, true
		for j, s := range pat {
			switch {
			case j == len(pat)-1 && s == "" && files:
			case strings.HasPrefix(s, "{"):
				ok = ok && segs[j] != ""
			default:
				ok = ok && s == segs[j]
				literals++
			}
		}
		if files {
			literals = -1 // any other route a path matches is more specific than files
		}
		if ok && literals > bestLiterals {
			best, bestLiterals = r, literals
		}
	}
	return best
}
