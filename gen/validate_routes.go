package gen

// Validate's checks of the http section (decision 0167; emit_routes.go in
// gen/golang emits it). The checks of streams are in validate_streams.go.

import (
	"mime"
	"regexp"
	"strings"
)

// eachRouteType calls fn for every type the http section is declared
// with, so that typeRefs and importedTypes resolve them with the rest.
func (v *validator) eachRouteType(fn func(*Type)) {
	h := v.spec.HTTP
	if h == nil {
		return
	}
	fn(h.Refusal)
	payload := func(p *Payload) {
		if p != nil {
			fn(p.Type)
			fn(p.With)
		}
	}
	for _, r := range h.Routes {
		for _, list := range [][]*RouteParam{r.Params, r.Query} {
			for _, p := range list {
				fn(p.Type)
			}
		}
		if r.Body != nil {
			payload(&r.Body.Payload)
		}
		payload(r.Response)
		if s := r.Stream; s != nil {
			fn(s.Union)
			for _, e := range s.Events {
				payload(&e.Payload)
			}
		}
		if r.Media != nil {
			for _, p := range r.Media.Headers {
				fn(p.Type)
			}
		}
	}
}

// routes checks the http section: the refusal record, and each route on
// its own and against the others.
func (v *validator) routes() {
	h := v.spec.HTTP
	if h == nil {
		return
	}
	v.refusalRecord(h)
	if len(h.Routes) == 0 {
		v.add(h.Pos, "http: declares no routes; add them under routes, or remove the section")
	}
	shapes := map[string]*Route{}
	for _, r := range h.Routes {
		what := "http.routes." + r.Name
		v.routeNames(r, what)
		v.routePath(r, what)
		v.routeParams(r, what)
		v.routeBody(r, what)
		v.routeAnswer(r, what)
		if r.Method == "" || r.Segments == nil {
			continue
		}
		key := r.Method + " " + shapeOf(r)
		if first, dup := shapes[key]; dup {
			v.add(r.Pos, "%s: %s %s matches the same requests as %s %s (http.routes.%s at %d:%d); a request could not tell them apart", what, r.Method, r.Path, first.Method, first.Path, first.Name, first.Pos.Line, first.Pos.Col)
		} else {
			shapes[key] = r
		}
	}
}

// shapeOf is what requests r's path matches: its literals, and a mark for
// each parameter whatever its name.
func shapeOf(r *Route) string {
	var b strings.Builder
	for _, s := range r.Segments {
		b.WriteByte('/')
		switch {
		case s.Param != "":
			b.WriteString("{}")
		case s.Literal == "" && r.Answer == AnswerFiles:
			b.WriteString("{files}")
		default:
			b.WriteString(s.Literal)
		}
	}
	return b.String()
}

// refusalRecord checks the record every refusal answers: a record with one
// required string field, the message.
func (v *validator) refusalRecord(h *HTTP) {
	t := h.Refusal
	if t == nil || t.unread() {
		return
	}
	x, name := v.spec.IndexOf(t)
	rec := (*Record)(nil)
	if x != nil {
		rec = x.Records[name]
	}
	if rec == nil {
		if t.Declared() || t.Kind == TypeBuiltin {
			v.add(t.Pos, "http.refusal: %s is %s, not a record; name the record every refusal answers", t, declArticle(t))
		}
		return // an undeclared name is reported by typeRefs
	}
	var msgs []*Field
	for _, f := range WireFields(rec.Fields) {
		if WireRequired(f) && f.Type.Kind == TypeBuiltin && f.Type.Scalar().Kind == ScalarString {
			msgs = append(msgs, f)
		}
	}
	switch {
	case len(msgs) == 0:
		v.add(t.Pos, "http.refusal: %s has no required string field to hold a refusal's message", t)
	case len(msgs) > 1:
		v.add(t.Pos, "http.refusal: %s has %d required string fields (%s, %s); the refusal's message needs exactly one", t, len(msgs), msgs[0].Name, msgs[1].Name)
	default:
		for _, f := range WireFields(rec.Fields) {
			if WireRequired(f) && f != msgs[0] {
				v.add(t.Pos, "http.refusal: %s requires %s, which a refusal cannot fill; only its message may be required", t, f.Name)
				return
			}
		}
		h.refusalField = msgs[0]
	}
}

// declArticle names what a type is, for messages: "a union", "an id".
func declArticle(t *Type) string {
	if t.Kind == TypeBuiltin {
		return "the builtin " + t.Name
	}
	k := t.decl.String()
	if strings.ContainsAny(k[:1], "aeiou") {
		return "an " + k
	}
	return "a " + k
}

// routeNames checks the route's name and claims the Go names generated
// from it.
func (v *validator) routeNames(r *Route, what string) {
	if why := checkIdent(r.Name, true); why != "" {
		v.add(r.Pos, "%s: route name %s %s; it names the Server method", what, r.Name, why)
		return
	}
	if v.spec.sourcesRead {
		if fixed := fixInitialisms(r.Name); fixed != r.Name {
			v.add(r.Pos, "%s: write %s as %s: Go writes initialisms in one case (staticcheck ST1003)", what, r.Name, fixed)
		}
	}
	v.claim(r.Name+"Request", what, r.Name, r.Pos)
	switch r.Answer {
	case AnswerStream:
		v.claim(r.Name+"Stream", what, r.Name, r.Pos)
		v.claim(r.Name+"Event", what, r.Name, r.Pos)
		if r.Stream.Union != nil {
			v.claim("New"+r.Name+"Event", what, r.Name, r.Pos)
		} else if len(r.Stream.Events) > 1 {
			v.claim(r.Name+"Received", what, r.Name, r.Pos) // the Go client's event
		}
		for _, e := range r.Stream.Events {
			if r.Stream.Union == nil && eventName.MatchString(e.Name) {
				v.claim("New"+r.Name+GoName(e.Name)+"Event", what+".stream.events."+e.Name, r.Name, e.Pos)
			}
		}
	case AnswerMedia:
		v.claim(r.Name+"Response", what, r.Name, r.Pos)
	}
}

// routePath checks the path against the parameters and the answer: every
// {name} declared, every parameter in the path once, a trailing slash only
// on a files route.
func (v *validator) routePath(r *Route, what string) {
	if len(r.Segments) == 0 {
		return
	}
	last := r.Segments[len(r.Segments)-1]
	trailing := last.Literal == "" && last.Param == ""
	switch {
	case r.Answer == AnswerFiles && !trailing:
		v.add(r.PathPos, "%s.path: a files route serves a directory: its path ends in /, such as %s/", what, r.Path)
	case r.Answer != AnswerFiles && trailing && r.Answer != AnswerNone:
		v.add(last.Pos, "%s.path: only a files route's path ends in /; remove the trailing slash", what)
	}
	if r.Answer == AnswerFiles && r.Method != "" && r.Method != "GET" {
		v.add(r.MethodPos, "%s.method: a files route answers GET, not %s", what, r.Method)
	}
	names := make([]string, 0, len(r.Params))
	for _, p := range r.Params {
		names = append(names, p.Name)
	}
	used := map[string]bool{}
	for _, s := range r.Segments {
		switch {
		case s.Param == "":
		case used[s.Param]:
			v.add(s.Pos, "%s.path: {%s} appears twice; each parameter names one segment", what, s.Param)
		case r.Param(s.Param) == nil:
			v.add(s.Pos, "%s.path: {%s} is not declared under params%s", what, s.Param, didYouMean(s.Param, names))
		}
		if s.Param != "" {
			used[s.Param] = true
		}
	}
	for _, p := range r.Params {
		if !used[p.Name] {
			v.add(p.Pos, "%s.params.%s: the path has no {%s}; a path parameter is a segment of the path", what, p.Name, p.Name)
		}
	}
}

// routeParams checks the path and query parameters: text types, names a
// URL and Go can both hold, one Go field each.
func (v *validator) routeParams(r *Route, what string) {
	goNames := map[string]string{"Body": "the body"}
	check := func(p *RouteParam, pwhat, kind string) {
		if !paramName.MatchString(p.Name) {
			v.add(p.Pos, "%s: %s name %q must be a letter or underscore followed by letters, digits or underscores", pwhat, kind, p.Name)
		} else if first, dup := goNames[p.GoName]; dup {
			v.add(p.Pos, "%s: %s becomes the request field %s, as %s does", pwhat, p.Name, p.GoName, first)
		} else {
			goNames[p.GoName] = p.Name
		}
		v.textType(p.Type, pwhat, kind)
	}
	for _, p := range r.Params {
		check(p, what+".params."+p.Name, "a path parameter")
		if k := v.spec.TextOf(p.Type); p.NotFound != "" && (k == TextString || k == TextStringID) {
			v.add(p.Pos, "%s.params.%s.notFound: every %s parses, so no value is refused with it; remove it", what, p.Name, p.Type)
		}
	}
	for _, p := range r.Query {
		check(p, what+".query."+p.Name, "a query parameter")
	}
}

// textType reports a parameter or header type that cannot be written as
// text.
func (v *validator) textType(t *Type, what, kind string) {
	if t == nil || t.unread() || (t.Kind == TypeNamed && t.decl == DeclNone) {
		return // undeclared: typeRefs says so
	}
	if v.spec.TextOf(t) == NotText {
		v.add(t.Pos, "%s: %s is text: string, bool, an integer, an id or an enum, not %s", what, kind, t)
	}
}

// routeBody checks the request body: a JSON object (a record or variant)
// on a route whose method carries one.
func (v *validator) routeBody(r *Route, what string) {
	b := r.Body
	if b == nil {
		return
	}
	if r.Method == "GET" {
		v.add(b.Pos, "%s.body: a GET carries no body; use query parameters, or POST", what)
	}
	v.objectType(b.Type, what+".body", "a request body")
}

// objectType reports a type that is not a JSON object a decoder reads
// strictly: a record or union variant that travels in JSON.
func (v *validator) objectType(t *Type, what, role string) bool {
	if t == nil || t.unread() || (t.Kind == TypeNamed && t.decl == DeclNone) {
		return false
	}
	x, name := v.spec.IndexOf(t)
	if x == nil || (x.Records[name] == nil && x.Variants[name].Variant == nil) {
		v.add(t.Pos, "%s: %s is a JSON object: a record or a union variant, not %s", what, role, t)
		return false
	}
	if !x.OnWire(name) {
		v.add(t.Pos, "%s: %s holds what cannot travel in JSON (a func, a channel, a face)", what, t)
		return false
	}
	return true
}

// wireType reports a type that does not travel in JSON.
func (v *validator) wireType(t *Type, what string) {
	if t == nil || t.unread() {
		return
	}
	ok := t.Wire()
	t.Walk(func(u *Type) {
		if x, name := v.spec.IndexOf(u); x != nil && u.decl != DeclNone && !x.OnWire(name) {
			ok = false
		}
	})
	if !ok {
		v.add(t.Pos, "%s: %s does not travel in JSON (a func, a channel, a face, or a record holding one)", what, t)
	}
}

// routeAnswer checks what the route answers.
func (v *validator) routeAnswer(r *Route, what string) {
	switch r.Answer {
	case AnswerJSON:
		v.payload(r.Response, what+".response")
	case AnswerStream:
		v.stream(r, what+".stream")
	case AnswerMedia:
		v.media(r.Media, what+".media")
	}
	seen := map[int]bool{}
	for _, f := range r.Refusals {
		if f.Status >= 400 && seen[f.Status] {
			v.add(f.Pos, "%s.refusals: %d is listed twice", what, f.Status)
		}
		seen[f.Status] = true
	}
}

// payload checks a JSON payload and its with record.
func (v *validator) payload(p *Payload, what string) {
	if p == nil || p.Type == nil {
		return
	}
	v.wireType(p.Type, what)
	if p.With == nil {
		return
	}
	item := p.Type
	if item.Kind == TypeSlice {
		item = item.Elem
	}
	if !v.objectType(item, what+".type", "a response that carries with's keys") {
		return
	}
	if !v.objectType(p.With, what+".with", "with") {
		return
	}
	x, name := v.spec.IndexOf(p.With)
	rec := x.Records[name]
	if rec == nil {
		v.add(p.With.Pos, "%s.with: %s is a variant; with names a record", what, p.With)
		return
	}
	ix, iname := v.spec.IndexOf(item)
	own := map[string]bool{}
	for _, f := range WireFields(ix.WireFields(iname)) {
		own[strings.ToLower(f.JSON)] = true
	}
	if u, ok := ix.Variants[iname]; ok {
		own[strings.ToLower(u.Union.Discriminator)] = true
	}
	for _, f := range WireFields(rec.Fields) {
		switch {
		case WireRequired(f):
			v.add(p.With.Pos, "%s.with: %s requires %s; with's fields must all be optional, so an answer without them is the plain %s", what, p.With, f.Name, item)
		case own[strings.ToLower(f.JSON)]:
			v.add(p.With.Pos, "%s.with: %s's %s is a key %s has too (in some case); a reader could not tell them apart", what, p.With, f.JSON, item)
		}
	}
}

var headerName = regexp.MustCompile(`^[A-Za-z0-9!#$%&'*+.^_|~-]+$`)

// media checks a media answer: a media type, and text headers with names
// a response can carry and a Go field each.
func (v *validator) media(m *Media, what string) {
	if m.Type != "" {
		if _, _, err := mime.ParseMediaType(m.Type); err != nil {
			v.add(m.TypePos, "%s.type: %q is not a media type (%v)", what, m.Type, err)
		} else if mt, _, _ := mime.ParseMediaType(m.Type); mt == "application/json" || mt == "text/event-stream" {
			v.add(m.TypePos, "%s.type: %s is what response or stream declare; media is for other bytes", what, mt)
		}
	}
	goNames := map[string]string{"Body": "the body"}
	for _, h := range m.Headers {
		hwhat := what + ".headers." + h.Name
		switch {
		case !headerName.MatchString(h.Name):
			v.add(h.Pos, "%s: %q is not a header name", hwhat, h.Name)
		case strings.EqualFold(h.Name, "Content-Type"):
			v.add(h.Pos, "%s: Content-Type is media's type; declare it there", hwhat)
		case checkIdent(h.GoName, true) != "":
			v.add(h.Pos, "%s: header %s becomes the Go name %s, which %s", hwhat, h.Name, h.GoName, checkIdent(h.GoName, true))
		default:
			if first, dup := goNames[h.GoName]; dup {
				v.add(h.Pos, "%s: %s becomes the response field %s, as %s does", hwhat, h.Name, h.GoName, first)
			}
			goNames[h.GoName] = h.Name
		}
		v.textType(h.Type, hwhat, "a header")
	}
}
