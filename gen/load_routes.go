package gen

// The loader of the http section (decision 0167): its structure and the
// shape of each value. What names resolve to is checked by Validate
// (validate_routes.go).

import (
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Methods are the HTTP methods a route may have, in the order messages
// list them.
var Methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// answerKeys are a route's keys that say what it answers, one per
// AnswerKind after AnswerNone.
var answerKeys = []string{"response", "stream", "media", "files"}

// http reads the http section.
func (l *loader) http(e entry) *HTTP {
	const what = "http"
	m := l.object(e.val, what, "doc", "refusal", "routes")
	h := &HTTP{Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	if r, ok := l.need(m, "refusal", e.keyNode, what, "the record every refusal answers, such as ErrorBody"); ok {
		h.Refusal = l.typeOf(r.val, what+".refusal")
	}
	if rs, ok := m["routes"]; ok {
		for _, re := range l.entries(rs.val, what+".routes") {
			h.Routes = append(h.Routes, l.route(re))
		}
	}
	return h
}

// typeOf reads a type expression written as a string.
func (l *loader) typeOf(n *yaml.Node, what string) *Type {
	n = resolve(n)
	if n.Kind == yaml.SequenceNode {
		l.add(n, "%s: a list type must be quoted: write \"[]%s\"", what, seqHint(n))
		return nil
	}
	if _, ok := l.str(n, what); !ok {
		return nil
	}
	return parseType(n, l.file, l.types, &l.errs)
}

// route reads one route.
func (l *loader) route(e entry) *Route {
	what := "http.routes." + e.key
	keys := append([]string{"doc", "method", "path", "public", "params", "query", "body", "refusals"}, answerKeys...)
	m := l.object(e.val, what, keys...)
	r := &Route{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	if n, ok := l.need(m, "method", e.keyNode, what, strings.Join(Methods, ", ")); ok {
		r.MethodPos = l.pos(resolve(n.val))
		if s, ok := l.str(n.val, what+".method"); ok {
			r.Method = s
			if !contains(Methods, s) {
				l.add(n.val, "%s.method: unknown method %s; use one of %s%s", what, s, strings.Join(Methods, ", "), didYouMean(s, Methods))
			}
		}
	}
	if n, ok := l.need(m, "path", e.keyNode, what, "such as /api/things/{id}"); ok {
		if s, ok := l.str(n.val, what+".path"); ok {
			r.Path, r.PathPos = s, l.pos(resolve(n.val))
			r.Segments = l.segments(resolve(n.val), what+".path")
		}
	}
	if n, ok := m["public"]; ok {
		r.Public, _ = l.boolean(n.val, what+".public")
	}
	if n, ok := m["params"]; ok {
		r.Params = l.routeParams(n.val, what+".params", false)
	}
	if n, ok := m["query"]; ok {
		r.Query = l.routeParams(n.val, what+".query", true)
	}
	if n, ok := m["body"]; ok {
		r.Body = l.body(n, what+".body")
	}
	l.answer(r, m, e.keyNode, what)
	if n, ok := m["refusals"]; ok {
		r.Refusals = l.refusals(n.val, what+".refusals")
	}
	return r
}

// answer reads the one key of m that says what r answers.
func (l *loader) answer(r *Route, m map[string]entry, at *yaml.Node, what string) {
	var found []entry
	for _, k := range answerKeys {
		if e, ok := m[k]; ok {
			found = append(found, e)
		}
	}
	switch {
	case len(found) == 0:
		l.add(at, "%s: missing an answer: one of %s", what, strings.Join(answerKeys, ", "))
		return
	case len(found) > 1:
		l.add(found[1].keyNode, "%s: a route answers one way; it has both %s and %s", what, found[0].key, found[1].key)
	}
	e := found[0]
	switch e.key {
	case "response":
		r.Answer, r.Response = AnswerJSON, l.payload(e, what+".response", true)
	case "stream":
		r.Answer, r.Stream = AnswerStream, l.stream(e, what+".stream")
	case "media":
		r.Answer, r.Media = AnswerMedia, l.media(e, what+".media")
	case "files":
		r.Answer, r.Files = AnswerFiles, l.files(e, what+".files")
	}
}

var (
	pathLiteral = regexp.MustCompile(`^[A-Za-z0-9._~-]+$`)
	paramName   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// segments splits a path into its segments, reporting what is no path:
// one that does not start with "/", an empty segment before the end, a
// segment that is neither URL text nor a whole {name}.
func (l *loader) segments(n *yaml.Node, what string) []Segment {
	path := n.Value
	base := l.pos(n)
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		base.Col++
	}
	if !strings.HasPrefix(path, "/") {
		l.errs.Add(base, "%s: a path starts with /, found %q", what, path)
		return nil
	}
	var out []Segment
	off := 1
	parts := strings.Split(path[1:], "/")
	for i, p := range parts {
		pos := base
		pos.Col += off
		off += len(p) + 1
		switch {
		case p == "" && i == len(parts)-1:
			out = append(out, Segment{Pos: pos}) // a trailing slash: a files route's file
		case p == "":
			l.errs.Add(pos, "%s: empty path segment (two slashes)", what)
		case strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}"):
			name := p[1 : len(p)-1]
			switch {
			case strings.HasSuffix(name, "..."):
				l.errs.Add(pos, "%s: %s: a parameter that takes the rest of the path is not supported; declare each segment", what, p)
			case !paramName.MatchString(name):
				l.errs.Add(pos, "%s: parameter %s must be a letter or underscore followed by letters, digits or underscores", what, p)
			default:
				out = append(out, Segment{Param: name, Pos: pos})
			}
		case !pathLiteral.MatchString(p):
			l.errs.Add(pos, "%s: segment %q must be letters, digits and . _ ~ - (URL text that needs no escaping), or a whole {name}", what, p)
		default:
			out = append(out, Segment{Literal: p, Pos: pos})
		}
	}
	return out
}

// routeParams reads path or query parameters, or response headers: each
// key a name, each value a type expression or a mapping with a type.
func (l *loader) routeParams(n *yaml.Node, what string, query bool) []*RouteParam {
	keys := []string{"type", "doc"}
	if query {
		keys = append(keys, "optional")
	} else if strings.HasSuffix(what, ".params") {
		keys = append(keys, "notFound")
	}
	var out []*RouteParam
	for _, e := range l.entries(n, what) {
		pwhat := what + "." + e.key
		p := &RouteParam{Name: e.key, GoName: GoName(e.key), Pos: l.pos(e.keyNode)}
		val := resolve(e.val)
		if val.Kind != yaml.MappingNode {
			p.Type = l.typeOf(val, pwhat)
		} else {
			pm := l.object(val, pwhat, keys...)
			p.Doc = l.doc(pm, pwhat)
			if t, ok := l.need(pm, "type", e.keyNode, pwhat, ""); ok {
				p.Type = l.typeOf(t.val, pwhat+".type")
			}
			if o, ok := pm["optional"]; ok {
				p.Optional, _ = l.boolean(o.val, pwhat+".optional")
			}
			if n, ok := pm["notFound"]; ok {
				if s, ok := l.str(n.val, pwhat+".notFound"); ok {
					p.NotFound = strings.TrimSpace(s)
					if p.NotFound == "" {
						l.add(n.val, "%s.notFound: the message of a 404 must not be empty; leave the key out for the adapter's own", pwhat)
					}
				}
			}
		}
		if p.Type != nil {
			out = append(out, p)
		}
	}
	return out
}

// payload reads a JSON payload: a type expression, or a mapping with a
// type, a doc and (where with is allowed) a record whose keys ride along.
func (l *loader) payload(e entry, what string, with bool, extra ...string) *Payload {
	p, _ := l.payloadKeys(e, what, with, extra...)
	return p
}

// payloadKeys is payload, returning the mapping's entries as well (nil for
// a type written alone), for the keys extra names.
func (l *loader) payloadKeys(e entry, what string, with bool, extra ...string) (*Payload, map[string]entry) {
	p := &Payload{Pos: l.pos(e.keyNode)}
	val := resolve(e.val)
	if val.Kind != yaml.MappingNode {
		p.Type = l.typeOf(val, what)
		return p, nil
	}
	keys := append([]string{"type", "doc"}, extra...)
	if with {
		keys = append(keys, "with")
	}
	m := l.object(val, what, keys...)
	p.Doc = l.doc(m, what)
	if t, ok := l.need(m, "type", e.keyNode, what, ""); ok {
		p.Type = l.typeOf(t.val, what+".type")
	}
	if w, ok := m["with"]; ok {
		p.With = l.typeOf(w.val, what+".with")
	}
	return p, m
}

// body reads a request body: a payload that may be optional and bounded.
func (l *loader) body(e entry, what string) *Body {
	p, m := l.payloadKeys(e, what, false, "optional", "maxBytes")
	b := &Body{Payload: *p, MaxBytes: DefaultMaxBodyBytes}
	if o, ok := m["optional"]; ok {
		b.Optional, _ = l.boolean(o.val, what+".optional")
	}
	if mb, ok := m["maxBytes"]; ok {
		if v, ok := l.integer(mb.val, what+".maxBytes"); ok {
			if v <= 0 {
				l.add(mb.val, "%s.maxBytes: %d is not a size; a body's limit is at least one byte", what, v)
			}
			b.MaxBytes = v
		}
	}
	return b
}

// stream reads a stream: its events (a union, or named events), how it is
// resumed and which events end it.
func (l *loader) stream(e entry, what string) *Stream {
	s := &Stream{Pos: l.pos(e.keyNode)}
	m := l.object(e.val, what, "doc", "union", "events", "resume", "ends")
	s.Doc = l.doc(m, what)
	u, hasUnion := m["union"]
	ev, hasEvents := m["events"]
	switch {
	case hasUnion && hasEvents:
		l.add(ev.keyNode, "%s: a stream's events are a union or named events, not both", what)
	case !hasUnion && !hasEvents:
		l.add(e.keyNode, "%s: missing key union or events (what the stream's events carry)", what)
	}
	if hasUnion {
		s.Union = l.typeOf(u.val, what+".union")
	}
	if hasEvents && !hasUnion {
		for _, x := range l.entries(ev.val, what+".events") {
			p := l.payload(x, what+".events."+x.key, true)
			s.Events = append(s.Events, &StreamEvent{Name: x.key, Payload: *p})
		}
	}
	if r, ok := m["resume"]; ok {
		s.Resume = l.resume(r, what+".resume")
	}
	if en, ok := m["ends"]; ok {
		s.Ends = l.refs(en.val, what+".ends")
	}
	return s
}

// resume reads how a stream resumes: the query parameter and the id field
// of each event that carries one.
func (l *loader) resume(e entry, what string) *Resume {
	m := l.object(e.val, what, "doc", "query", "ids")
	r := &Resume{Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	if q, ok := l.need(m, "query", e.keyNode, what, "the query parameter a client resumes with"); ok {
		r.Query = l.ref(q.val, what+".query")
	}
	if ids, ok := l.need(m, "ids", e.keyNode, what, "each event's field whose value is its id"); ok {
		for _, x := range l.entries(ids.val, what+".ids") {
			r.IDs = append(r.IDs, ResumeID{Event: Ref{Name: x.key, Pos: l.pos(x.keyNode)}, Field: l.ref(x.val, what+".ids."+x.key)})
		}
	}
	return r
}

// media reads a media answer: its type and typed headers.
func (l *loader) media(e entry, what string) *Media {
	md := &Media{Pos: l.pos(e.keyNode)}
	m := l.object(e.val, what, "doc", "type", "headers")
	md.Doc = l.doc(m, what)
	if t, ok := l.need(m, "type", e.keyNode, what, "a media type such as text/plain; charset=utf-8"); ok {
		md.Type, _ = l.str(t.val, what+".type")
		md.TypePos = l.pos(resolve(t.val))
	}
	if h, ok := m["headers"]; ok {
		md.Headers = l.routeParams(h.val, what+".headers", false)
	}
	return md
}

// files reads a files answer: true, or a mapping with a doc.
func (l *loader) files(e entry, what string) *Files {
	f := &Files{Pos: l.pos(e.keyNode)}
	val := resolve(e.val)
	if val.Kind == yaml.MappingNode {
		f.Doc = l.doc(l.object(val, what, "doc"), what)
		return f
	}
	if b, ok := l.boolean(val, what); ok && !b {
		l.add(val, "%s: files: false declares no answer; leave the key out and declare one", what)
	}
	return f
}

// refusals reads a route's refusals: status → when.
func (l *loader) refusals(n *yaml.Node, what string) []*Refusal {
	var out []*Refusal
	for _, e := range l.entries(n, what) {
		status, err := strconv.Atoi(e.key)
		if err != nil || e.keyNode.Tag != "!!int" || status < 400 || status > 599 {
			l.add(e.keyNode, "%s: %s is not a refusal's status; use an HTTP status from 400 to 599", what, e.key)
			continue
		}
		r := &Refusal{Status: status, Pos: l.pos(e.keyNode)}
		if s, ok := l.str(e.val, what+"."+e.key); ok {
			r.Doc = strings.TrimSpace(s)
		}
		if r.Doc == "" {
			l.add(e.val, "%s.%s: say when the route refuses with %d", what, e.key, status)
		}
		out = append(out, r)
	}
	return out
}
