package routetest

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/httproute"
)

// methods are the methods the walk tries on every path.
var methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// nope is a path segment no table declares.
const nope = "routetest-nope"

// sample is a well-formed value of p: the caller's, or one the walk makes
// from its text.
func (w *walker) sample(r *httproute.Route, p httproute.Param) string {
	if w.opts.Value != nil {
		if v := w.opts.Value(r.Name, p); v != "" {
			return v
		}
	}
	switch p.Text.Kind {
	case httproute.TextBool:
		return "true"
	case httproute.TextInt, httproute.TextUint:
		return "0"
	case httproute.TextUUID:
		return "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	case httproute.TextEnum:
		return p.Text.Values[0]
	}
	return "routetest"
}

// pathOf is r's path with each parameter's value from value (the files
// slot of a files route left empty: its index).
func pathOf(r *httproute.Route, value func(httproute.Param) string) string {
	parts := strings.Split(r.Path, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			for _, p := range r.Params {
				if "{"+p.Name+"}" == s {
					parts[i] = url.PathEscape(value(p))
				}
			}
		}
	}
	return strings.Join(parts, "/")
}

// request is a well-formed request to r: its path, its required query
// parameters, and for a state change the headers a page of this site sends.
func (w *walker) request(r *httproute.Route, what string) probe {
	p := probe{what: what, method: r.Method, header: map[string]string{}, stream: r.Answer == httproute.AnswerStream}
	p.path = pathOf(r, func(q httproute.Param) string { return w.sample(r, q) })
	var query []string
	for _, q := range r.Query {
		if !q.Optional {
			query = append(query, q.Name+"="+url.QueryEscape(w.sample(r, q)))
		}
	}
	if len(query) > 0 {
		p.path += "?" + strings.Join(query, "&")
	}
	if r.Method != "GET" {
		p.header["Sec-Fetch-Site"] = "same-origin"
	}
	if r.Body != nil {
		p.header["Content-Type"] = "application/json"
		p.body = "{}"
		if w.opts.Body != nil {
			if b := w.opts.Body(r.Name); b != "" {
				p.body = b
			}
		}
	}
	if slices.Contains(w.opts.Declined, r.Name) {
		p.decline = r.Name
	}
	return p
}

func (w *walker) wellFormed(r *httproute.Route) { w.send(r, w.request(r, "a well-formed request")) }

// routesAt are the routes of table whose paths match path, a path with no
// query. A files route matches only its own path (its index): a name below
// it is the directory's to have or not, which the table cannot say.
func routesAt(table httproute.Table, path string) []*httproute.Route {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var out []*httproute.Route
	for i := range table.Routes {
		r := &table.Routes[i]
		pat := strings.Split(strings.TrimPrefix(r.Path, "/"), "/")
		if len(pat) != len(segs) {
			continue
		}
		ok := true
		for j, s := range pat {
			switch {
			case j == len(pat)-1 && s == "" && r.Answer == httproute.AnswerFiles:
				ok = ok && segs[j] == ""
			case strings.HasPrefix(s, "{"):
				ok = ok && segs[j] != ""
			default:
				ok = ok && s == segs[j]
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

// allowOf is the Allow a path's routes answer: their methods, HEAD with GET.
func allowOf(routes []*httproute.Route) []string {
	var ms []string
	for _, r := range routes {
		ms = append(ms, r.Method)
		if r.Method == "GET" {
			ms = append(ms, "HEAD")
		}
	}
	slices.Sort(ms)
	return slices.Compact(ms)
}

// Allow is what table says a request path (without its query) takes: the
// methods of the routes whose paths match it (a literal segment equal, a
// parameter any segment, a files route its own path), HEAD beside GET,
// sorted; none for a path no route has. It reads
// the table on its own, apart from httproute's matching, so that a walk
// (or a property) holds the handler to the table and not to itself.
func Allow(table httproute.Table, path string) []string { return allowOf(routesAt(table, path)) }

// otherMethods sends every method the path of r's well-formed request
// does not take: a 405 with Allow.
func (w *walker) otherMethods(r *httproute.Route) {
	base := w.request(r, "another method")
	path, _, _ := strings.Cut(base.path, "?")
	allow := Allow(w.table, path)
	for _, m := range methods {
		if slices.Contains(allow, m) {
			continue
		}
		p := base
		p.what, p.method, p.status, p.allow, p.stream, p.decline = "method "+m, m, http.StatusMethodNotAllowed, strings.Join(allow, ", "), false, ""
		w.send(r, p)
	}
}

// unknownPaths sends paths beside r's that no route has: one segment more,
// and its first literal segment changed.
func (w *walker) unknownPaths(r *httproute.Route) {
	base := w.request(r, "an unknown path")
	path, _, _ := strings.Cut(base.path, "?")
	var paths []string
	paths = append(paths, strings.TrimSuffix(path, "/")+"/"+nope+"/"+nope)
	if segs := strings.Split(path, "/"); len(segs) > 1 && segs[1] != "" {
		segs[1] = nope
		paths = append(paths, strings.Join(segs, "/"))
	}
	for _, u := range paths {
		if len(routesAt(w.table, u)) > 0 {
			continue
		}
		for _, m := range []string{r.Method, "GET"} {
			p := base
			p.what, p.method, p.path, p.status, p.stream, p.decline = "an unknown path", m, u, http.StatusNotFound, false, ""
			w.send(r, p)
		}
	}
}

// malformed is a value no parameter of a kind that can be refused takes;
// ok is false for a kind every value is (a string).
func malformed(p httproute.Param) (string, bool) {
	switch p.Text.Kind {
	case httproute.TextString, httproute.TextStringID:
		return "", false
	}
	return "routetest-not-" + strings.ToLower(p.Type), true
}

// badParams sends each parameter malformed, and a required query
// parameter missing.
func (w *walker) badParams(r *httproute.Route) {
	for _, bad := range r.Params {
		v, ok := malformed(bad)
		if !ok {
			continue
		}
		p := w.request(r, "path parameter "+bad.Name+" malformed")
		p.path = pathOf(r, func(q httproute.Param) string {
			if q.Name == bad.Name {
				return v
			}
			return w.sample(r, q)
		})
		p.status, p.stream, p.decline = http.StatusNotFound, false, ""
		w.send(r, p)
	}
	resume := ""
	if r.Events != nil {
		resume = r.Events.Resume
	}
	for _, bad := range r.Query {
		base := w.request(r, "")
		path, _, _ := strings.Cut(base.path, "?")
		var with, without []string
		for _, q := range r.Query {
			if !q.Optional && q.Name != bad.Name {
				with = append(with, q.Name+"="+url.QueryEscape(w.sample(r, q)))
				without = append(without, q.Name+"="+url.QueryEscape(w.sample(r, q)))
			}
		}
		if v, ok := malformed(bad); ok {
			p := base
			p.what, p.path, p.status, p.stream, p.decline = "query parameter "+bad.Name+" malformed", path+"?"+strings.Join(append(with, bad.Name+"="+url.QueryEscape(v)), "&"), http.StatusBadRequest, false, ""
			w.send(r, p)
			if bad.Name == resume {
				p.what, p.path, p.header = "Last-Event-ID malformed", path+"?"+strings.Join(without, "&"), clone(base.header, "Last-Event-ID", v)
				w.send(r, p)
			}
		}
		if !bad.Optional {
			p := base
			p.what, p.path, p.status, p.stream, p.decline = "query parameter "+bad.Name+" missing", path+"?"+strings.Join(without, "&"), http.StatusBadRequest, false, ""
			w.send(r, p)
		}
	}
}

// clone is h with name set to value.
func clone(h map[string]string, name, value string) map[string]string {
	out := map[string]string{name: value}
	for k, v := range h {
		if k != name {
			out[k] = v
		}
	}
	return out
}

// badBodies sends what a route with a body refuses: too large, no JSON,
// no Content-Type, another site.
func (w *walker) badBodies(r *httproute.Route) {
	if r.Body == nil {
		return
	}
	base := w.request(r, "")
	base.stream, base.decline = false, ""
	for _, p := range []probe{
		{what: "a body over its limit", body: `{"x":"` + strings.Repeat("x", int(r.Body.MaxBytes)) + `"}`, status: http.StatusRequestEntityTooLarge},
		{what: "a body that is no JSON", body: "{", status: http.StatusBadRequest},
		{what: "a body without Content-Type", body: base.body, header: clone(base.header, "Content-Type", ""), status: http.StatusUnsupportedMediaType},
		{what: "a body from another site", body: base.body, header: clone(base.header, "Sec-Fetch-Site", "cross-site"), status: http.StatusForbidden},
	} {
		q := base
		q.what, q.body, q.status = p.what, p.body, p.status
		if p.header != nil {
			q.header = p.header
		}
		w.send(r, q)
	}
}

// noCaller sends a well-formed request without the caller's credentials:
// a 401 for every route that is not public.
func (w *walker) noCaller(r *httproute.Route) {
	if w.opts.Authorize == nil {
		return
	}
	p := w.request(r, "no caller")
	p.bare, p.decline = true, ""
	if r.Public {
		w.send(r, p)
		return
	}
	p.status, p.stream = http.StatusUnauthorized, false
	w.send(r, p)
}
