package python

import (
	_ "embed"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// The client module of a spec with an http section (decision 0203): beside
// <name>.py, <name>_client.py holds Client and AsyncClient, one method per
// route in snake case, over the package's client runtime (pyclient.py),
// which imports httpx. Every kind of answer is written from the model
// alone: a JSON answer decoded as its type (a `with` one as Placed items),
// a stream as an iterator of its decoded events, a media answer as a
// dataclass of its bytes and typed headers, files as bytes.

// clientModule is the client runtime's name in the package.
const clientModule = "client"

// pyClient is the client runtime, the package's client.py.
//
//go:embed pyclient.py
var pyClient string

// ClientRuntime is the text of the client runtime, client.py, without its marker.
func ClientRuntime() string { return pyClient }

// clientNames are the names a route's method may not take, and its
// parameters may not: the callers' own attributes and the locals of the
// methods.
var clientNames = []string{"self", "close", "aclose", "body", "retries", "response", "events", "event", "value"}

// checkClientNames reports a route whose method or parameter would take a
// name the client keeps for itself.
func checkClientNames(s *gen.Spec) gen.ErrorList {
	var errs gen.ErrorList
	if s.HTTP == nil {
		return nil
	}
	for _, r := range s.HTTP.Routes {
		if n := snake(r.Name); slices.Contains(clientNames, n) || slices.Contains(pyKeywords, n) {
			errs.Add(r.Pos, "http.routes.%s: the Python client's method would be %s, which the client keeps for itself; rename the route", r.Name, n)
		}
		for _, p := range append(slices.Clone(r.Params), r.Query...) {
			if n := pyName(p.Name); slices.Contains(clientNames, n) {
				errs.Add(p.Pos, "http.routes.%s: parameter %s is %s in Python, which the client keeps for itself; rename it", r.Name, p.Name, n)
			}
		}
	}
	return errs
}

// clientWriter writes one client module.
type clientWriter struct {
	*pyWriter
	std    map[string][]string // the standard library's modules and the names imported
	client map[string]bool     // names from the client runtime
}

// emitClient writes the client module of spec s, which has routes, at name.
func emitClient(s *gen.Spec, o gen.Origin, name, runtime string) gen.File {
	w := &clientWriter{
		pyWriter: &pyWriter{spec: s, runtimePackage: runtime, own: s.Package.Name, runtime: map[string]bool{}, typing: map[string]bool{}, pydantic: map[string]bool{}, specs: map[string]bool{}},
		std:      map[string][]string{},
		client:   map[string]bool{},
	}
	w.clientBody()
	body := w.b.String()
	w.b.Reset()
	w.b.WriteString(gen.Mark(Backend{}, o, name))
	mod := strings.TrimSuffix(path.Base(name), ".py")
	w.docstring("", doctext.Named(fmt.Sprintf("Module %s is the client of package %s's routes: Client calls them, AsyncClient with coroutines.\n\n%s", mod, s.Package.Name, s.HTTP.Doc), mod, mod),
		"")
	w.line("")
	w.clientImports()
	if !strings.HasPrefix(body, "\n\nclass ") && !strings.HasPrefix(body, "\n\ndef ") && !strings.HasPrefix(body, "\n\n@") {
		body = strings.TrimPrefix(body, "\n") // isort: one blank line before a statement
	}
	w.b.WriteString(body)
	return gen.File{Path: name, Content: []byte(w.b.String())}
}

func (w *clientWriter) use(mod string, names ...string) {
	for _, n := range names {
		if !slices.Contains(w.std[mod], n) {
			w.std[mod] = append(w.std[mod], n)
		}
	}
}

func (w *clientWriter) clientName(n string) string {
	w.client[n] = true
	return n
}

// clientImports writes the module's imports as isort groups them.
func (w *clientWriter) clientImports() {
	w.line("from __future__ import annotations")
	if len(w.typing) > 0 {
		w.use("typing", isortMembers(w.typing)...)
	}
	var std, others, own [][2]any
	for _, mod := range gen.SortedKeys(w.std) {
		m := map[string]bool{}
		for _, n := range w.std[mod] {
			m[n] = true
		}
		std = append(std, [2]any{mod, isortMembers(m)})
	}
	third := map[string][]string{}
	if len(w.pydantic) > 0 {
		third["pydantic"] = isortMembers(w.pydantic)
	}
	mods := append([]string{w.spec.Package.Name}, importedModules(w.spec, w.specs, third)...)
	own = append(own, [2]any{".", isortOrder(mods)})
	for _, m := range []struct {
		mod   string
		names map[string]bool
	}{{clientModule, w.client}, {runtimeModule, w.runtime}} {
		if len(m.names) == 0 {
			continue
		}
		if w.runtimePackage == "" {
			own = append(own, [2]any{"." + m.mod, isortMembers(m.names)})
		} else {
			third[w.runtimePackage+"."+m.mod] = isortMembers(m.names)
		}
	}
	for _, mod := range gen.SortedKeys(third) {
		others = append(others, [2]any{mod, isortOrder(third[mod])})
	}
	for _, group := range [][][2]any{std, others, own} {
		if len(group) == 0 {
			continue
		}
		w.line("")
		for _, im := range group {
			w.fromImport(im[0].(string), im[1].([]string))
		}
	}
}

// clientBody writes the stream event sets, the media answers and the two
// classes.
func (w *clientWriter) clientBody() {
	h := w.spec.HTTP
	for _, r := range h.Routes {
		if r.Answer == gen.AnswerStream {
			var names []string
			for _, ev := range r.Stream.Events {
				names = append(names, fmt.Sprintf("%q", ev.Name))
			}
			w.use("typing", "Final")
			w.blank()
			if len(names) == 0 {
				w.line("%s: Final[frozenset[str]] = frozenset()", eventsConst(r))
			} else {
				w.bracketed("", eventsConst(r)+": Final = frozenset({", names, "})", "")
			}
			w.docstring("", fmt.Sprintf("%s are the events of %s's stream.", eventsConst(r), r.Name), "")
		}
	}
	for _, r := range h.Routes {
		switch {
		case r.Answer == gen.AnswerMedia:
			w.mediaClass(r)
		case r.Answer == gen.AnswerStream && r.Stream.Union == nil && len(r.Stream.Events) > 1:
			w.eventClass(r)
		}
	}
	refusal := w.pyType(h.Refusal)
	for _, async := range []bool{false, true} {
		name, base := "Client", "Caller"
		if async {
			name, base = "AsyncClient", "AsyncCaller"
		}
		w.blank()
		w.line("class %s(%s):", name, w.clientName(base))
		if async {
			w.docstring("    ", "An AsyncClient is a Client whose calls are coroutines, and whose streams are asynchronous iterators.", "")
		} else {
			w.docstring("    ", fmt.Sprintf("A Client calls the routes of package %s's wire on one server, as one session: a method per route, each refusal raised as a WireError.", w.spec.Package.Name), "")
		}
		w.line("")
		w.line("    def _refused(self, body: bytes) -> str:")
		w.line("        return %s.decode(body).%s", refusal, fieldName(h.RefusalField()))
		for _, r := range h.Routes {
			w.line("")
			w.method(r, async)
		}
	}
}

// eventsConst names the module's set of a stream route's events.
func eventsConst(r *gen.Route) string { return "_" + upperSnake(r.Name) + "_EVENTS" }

// mediaClass writes the dataclass a media route answers.
func (w *clientWriter) mediaClass(r *gen.Route) {
	w.use("dataclasses", "dataclass")
	w.blank()
	w.line("@dataclass(frozen=True)")
	w.line("class %sResponse:", r.Name)
	w.docstring("    ", fmt.Sprintf("%sResponse is what %s answers: bytes of %s, and its headers.", r.Name, snake(r.Name), r.Media.Type), "")
	w.line("")
	w.line("    body: bytes")
	for _, hd := range r.Media.Headers {
		w.line("    %s: %s", pyName(hd.GoName), w.headerType(hd))
		if hd.Doc != "" {
			w.docstring("    ", hd.Doc, "")
		}
	}
}

// headerType is the annotation of a media answer's header: its type, but
// for an enum, which a header holds as text unchecked.
func (w *clientWriter) headerType(p *gen.RouteParam) string {
	if w.spec.TextOf(p.Type) == gen.TextEnum {
		return "str"
	}
	return w.pyType(p.Type)
}

// headerValue reads a media answer's header as its type.
func (w *clientWriter) headerValue(p *gen.RouteParam) string {
	switch w.spec.TextOf(p.Type) {
	case gen.TextBool:
		return fmt.Sprintf("%s(response.headers, %q)", w.clientName("header_bool"), p.Name)
	case gen.TextInt, gen.TextUint:
		return fmt.Sprintf("%s(response.headers, %q)", w.clientName("header_int"), p.Name)
	case gen.TextUUID, gen.TextStringID:
		return fmt.Sprintf("%s(response.headers.get(%q, \"\"))", w.pyType(p.Type), p.Name)
	}
	return fmt.Sprintf("response.headers.get(%q, \"\")", p.Name)
}

// paramType is a path or query parameter's annotation; an enum is its Literal.
func (w *clientWriter) paramType(p *gen.RouteParam) string {
	t := w.pyType(p.Type)
	if p.Optional {
		t += " | None"
	}
	return t
}

// method writes the method of route r.
func (w *clientWriter) method(r *gen.Route, async bool) {
	args := []string{"self"}
	for _, p := range r.Params {
		args = append(args, pyName(p.Name)+": "+w.paramType(p))
	}
	if b := r.Body; b != nil {
		if b.Optional {
			args = append(args, "body: "+w.pyType(b.Type)+" | None = None")
		} else {
			args = append(args, "body: "+w.pyType(b.Type))
		}
	}
	if r.Answer == gen.AnswerFiles {
		args = append(args, `name: str = ""`)
	}
	var kw []string
	for _, p := range r.Query {
		if p.Optional {
			kw = append(kw, pyName(p.Name)+": "+w.paramType(p)+" = None")
		} else {
			kw = append(kw, pyName(p.Name)+": "+w.paramType(p))
		}
	}
	if r.Answer == gen.AnswerStream {
		kw = append(kw, "retries: int = 5")
	}
	if len(kw) > 0 {
		args = append(append(args, "*"), kw...)
	}
	ret := w.answerType(r)
	def := "def "
	switch {
	case async && r.Answer == gen.AnswerStream:
		w.use("collections.abc", "AsyncIterator")
		ret = "AsyncIterator[" + ret + "]"
		def = "async def "
	case async:
		def = "async def "
	case r.Answer == gen.AnswerStream:
		w.use("collections.abc", "Iterator")
		ret = "Iterator[" + ret + "]"
	}
	w.bracketed("    ", def+snake(r.Name)+"(", args, ")", " -> "+ret+":")
	w.docstring("        ", clientDoc(r), "")
	aw := ""
	if async {
		aw = "await "
	}
	call := []string{fmt.Sprintf("%q", r.Method), w.pathExpr(r)}
	if len(r.Query) > 0 && r.Answer != gen.AnswerStream {
		call = append(call, "query="+w.queryExpr(r))
	}
	if b := r.Body; b != nil && b.Optional {
		call = append(call, `body=b"" if body is None else body.encode()`)
	} else if b != nil {
		call = append(call, "body=body.encode()")
	}
	switch r.Answer {
	case gen.AnswerJSON:
		w.bracketed("        ", "response = "+aw+"self._call(", call, ")", "")
		w.returnDecoded(r.Response, "response.content")
	case gen.AnswerFiles:
		if call[1] == `""` {
			call[1] = w.clientName("file_name") + "(name)"
		} else {
			call[1] = call[1] + " + " + w.clientName("file_name") + "(name)"
		}
		w.bracketed("        ", "response = "+aw+"self._call(", call, ")", "")
		w.line("        return response.content")
	case gen.AnswerMedia:
		w.bracketed("        ", "response = "+aw+"self._call(", call, ")", "")
		fields := []string{"body=response.content"}
		for _, hd := range r.Media.Headers {
			fields = append(fields, pyName(hd.GoName)+"="+w.headerValue(hd))
		}
		w.bracketed("        ", "return "+r.Name+"Response(", fields, ")", "")
	case gen.AnswerStream:
		w.streamBody(r, async)
	}
}

// clientDoc is a method's docstring: the route's doc, its method and path,
// and its refusals.
func clientDoc(r *gen.Route) string {
	doc := strings.TrimSpace(r.Doc)
	if doc == "" {
		doc = snake(r.Name) + " calls route " + r.Name + "."
	}
	doc += "\n\n" + r.Method + " " + r.Path
	if r.Answer == gen.AnswerStream {
		doc += "\n\nA dropped connection reconnects"
		if r.Stream.Resume != nil {
			doc += " where it was (Last-Event-ID)"
		}
		doc += ", up to retries times in a row without progress; then the last failure is raised."
	}
	if len(r.Refusals) > 0 {
		doc += "\n\nIt raises a WireError of:"
		for _, f := range r.Refusals {
			doc += fmt.Sprintf("\n- %d: %s", f.Status, strings.Join(strings.Fields(f.Doc), " "))
		}
	}
	return doc
}

// pathExpr is the expression of r's path below the base URL.
func (w *clientWriter) pathExpr(r *gen.Route) string {
	var parts []string
	params := false
	for _, sg := range r.Segments {
		if sg.Param != "" {
			params = true
			parts = append(parts, "{"+w.clientName("segment")+"("+pyName(sg.Param)+")}")
		} else {
			parts = append(parts, sg.Literal)
		}
	}
	p := strings.TrimPrefix(strings.Join(parts, "/"), "/")
	if params {
		return "f" + pyString(p)
	}
	return pyString(p)
}

// queryExpr is the dict of r's query parameters as text.
func (w *clientWriter) queryExpr(r *gen.Route) string {
	var items []string
	for _, p := range r.Query {
		items = append(items, fmt.Sprintf("%q: %s(%s)", p.Name, w.clientName("text"), pyName(p.Name)))
	}
	one := "{" + strings.Join(items, ", ") + "}"
	// As ruff formats a call's argument: on one line when it fits in 88
	// columns after the call's 12-space indent, "query=" and its comma, else
	// one item a line with a trailing comma.
	if 12+len("query=")+len(one)+1 <= 88 {
		return one
	}
	return "{\n" + "                " + strings.Join(items, ",\n                ") + ",\n            }"
}

// answerType is what r's method answers (for a stream, each item).
func (w *clientWriter) answerType(r *gen.Route) string {
	switch r.Answer {
	case gen.AnswerJSON:
		return w.payloadType(r.Response)
	case gen.AnswerMedia:
		return r.Name + "Response"
	case gen.AnswerFiles:
		return "bytes"
	}
	s := r.Stream
	switch {
	case s.Union != nil:
		return w.pyType(s.Union)
	case len(s.Events) == 1:
		return w.payloadType(&s.Events[0].Payload)
	case len(s.Events) == 0:
		w.typing["NoReturn"] = true
		return "NoReturn"
	}
	return r.Name + "Event"
}

// payloadType is the annotation of a decoded payload.
func (w *clientWriter) payloadType(p *gen.Payload) string {
	if p.With == nil {
		return w.pyType(p.Type)
	}
	placed := w.runtimeName("Placed")
	if p.Type.Kind == gen.TypeSlice {
		return "list[" + placed + "[" + w.pyType(p.Type.Elem) + ", " + w.pyType(p.With) + "]]"
	}
	return placed + "[" + w.pyType(p.Type) + ", " + w.pyType(p.With) + "]"
}

// decoded is the expression that decodes data as p; typed reports that its
// type is p's (false: Any, from the runtime's decode_value).
func (w *clientWriter) decoded(p *gen.Payload, data string) (expr string, typed bool) {
	t := p.Type
	if p.With != nil {
		if t.Kind == gen.TypeSlice {
			return w.runtimeName("decode_list_with") + "(" + w.pyType(t.Elem) + ", " + w.pyType(p.With) + ", " + data + ")", true
		}
		return w.runtimeName("decode_with") + "(" + w.pyType(t) + ", " + w.pyType(p.With) + ", " + data + ")", true
	}
	switch {
	case t.Declared() && (t.Decl() == gen.DeclRecord || t.Decl() == gen.DeclVariant):
		return w.pyType(t) + ".decode(" + data + ")", true
	case t.Declared() && t.Decl() == gen.DeclUnion:
		fn := "decode_" + snake(t.Name)
		if q := w.pyType(t); strings.Contains(q, ".") {
			fn = q[:strings.LastIndex(q, ".")+1] + fn
		}
		return fn + "(" + data + ")", true
	case t.Kind == gen.TypeSlice && t.Elem.Declared() && (t.Elem.Decl() == gen.DeclRecord || t.Elem.Decl() == gen.DeclVariant):
		return w.runtimeName("decode_list") + "(" + w.pyType(t.Elem) + ", " + data + ")", true
	}
	return w.runtimeName("decode_value") + "(" + w.pyType(t) + ", " + data + ")", false
}

// returnDecoded writes the return of p decoded from data.
func (w *clientWriter) returnDecoded(p *gen.Payload, data string) {
	expr, typed := w.decoded(p, data)
	if typed {
		w.bracketedCall("        ", "return ", expr)
		return
	}
	w.bracketedCall("        ", "value: "+w.payloadType(p)+" = ", expr)
	w.line("        return value")
}

// bracketedCall writes prefix and a call expression, split as black splits
// its arguments when it does not fit.
func (w *clientWriter) bracketedCall(indent, prefix, expr string) {
	open := strings.Index(expr, "(")
	inner := expr[open+1 : len(expr)-1]
	w.bracketed(indent, prefix+expr[:open+1], splitArgs(inner), ")", "")
}

// splitArgs splits a call's arguments at its top-level commas.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
