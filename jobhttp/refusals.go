package jobhttp

import (
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// A routeTable is the mux of a Handler or a Fleet, answering what no route
// of it serves as the wire answers every refusal, with a wire.ErrorBody:
// 405 with Allow for a path a route has, asked with another method, and
// 404 for a path none has. The mux itself would answer both in plain text,
// and would take every GET for the page's (GET /, which serves files), so
// the page serves a path only when it has a file there.
type routeTable struct {
	mux  *http.ServeMux
	page fs.FS // the page's files
}

// pagePattern is the route of the page.
const pagePattern = "GET /"

// probedMethods are the methods a refusal's Allow may name.
var probedMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

func (rt routeTable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rt.serves(r) {
		rt.mux.ServeHTTP(w, r)
		return
	}
	var allow []string
	for _, m := range probedMethods {
		other := *r
		other.Method = m
		if m != r.Method && rt.serves(&other) {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		httpError(w, http.StatusNotFound, fmt.Sprintf("no route %s: see the routes in package jobhttp's doc", r.URL.Path))
		return
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	httpError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s is not a method of %s: use %s", r.Method, r.URL.Path, strings.Join(allow, " or ")))
}

// serves reports whether a route serves r: the mux has one for it (a
// redirect to a clean path included), and when that route is the page's,
// the page has a file at r's path.
func (rt routeTable) serves(r *http.Request) bool {
	switch _, pattern := rt.mux.Handler(r); pattern {
	case "":
		return false
	case pagePattern:
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if name == "" {
			name = "."
		}
		_, err := fs.Stat(rt.page, name)
		return err == nil
	}
	return true
}
