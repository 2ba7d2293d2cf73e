package typescript

// The typed client of a spec's http section (decision 0197): a Client
// class with one method per route, each taking the route's typed
// parameters and answering its decoded body, its decoded events as an
// AsyncGenerator, its text and headers, or the URL of its files. What every
// route shares (fetch, the refusal as a WireError, the event stream reader,
// resume and the retry budget) is the runtime's _Wire, which Client extends.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// methodName is a route's Client method: its name in lower camel case.
func methodName(r *gen.Route) string {
	return strings.ToLower(r.Name[:1]) + r.Name[1:]
}

// wireMembers are the members of the runtime's _Wire, which a Client
// method must not shadow.
var wireMembers = []string{"base", "headers", "fetch", "reconnectDelay", "retries", "refusal", "constructor"}

// checkTSRoutes reports the routes whose Client method would shadow a
// member of _Wire, or be another route's method (a media route's URL
// method included), at the route.
func checkTSRoutes(s *gen.Spec) gen.ErrorList {
	var errs gen.ErrorList
	if s.HTTP == nil {
		return nil
	}
	taken := map[string]string{}
	for _, m := range wireMembers {
		taken[m] = "the runtime's _Wire." + m
	}
	for _, r := range s.HTTP.Routes {
		names := []string{methodName(r)}
		if r.Answer == gen.AnswerMedia {
			names = append(names, methodName(r)+"URL")
		}
		for _, n := range names {
			if by, dup := taken[n]; dup {
				errs.Add(r.Pos, "http.routes.%s: its TypeScript Client method %s is taken by %s; rename the route", r.Name, n, by)
				continue
			}
			taken[n] = "route " + r.Name
		}
	}
	return errs
}

// client writes the module's Client and the types its methods answer.
func (w *tsWriter) client() {
	h := w.spec.HTTP
	for _, r := range h.Routes {
		w.routeTypes(r)
	}
	doc := h.Doc
	if doc != "" {
		doc = "Client is the typed client of this server's routes, one method each. " + doc
	}
	text := "\n" + docText("", doc, "Client is the typed client of package "+w.spec.Package.Name+"'s routes, one method each.")
	w.b.WriteString(text)
	w.d.WriteString(text + "export declare class Client extends _Wire {\n  constructor(options: ClientOptions);\n")
	w.line("export class Client extends _Wire {")
	msg := h.RefusalField()
	w.line("  constructor(options%s) {", ty(": ClientOptions"))
	w.line("    super(options, (v) => %s(v).%s);", w.qualified(h.Refusal, "decode"), msg.JSON)
	w.line("  }")
	for _, r := range h.Routes {
		w.routeMethod(r)
	}
	w.line("}")
	w.d.WriteString("}\n")
}

// eventType is the type of what a stream route's method yields: its union,
// or for named events a union of {event, data} objects.
func (w *tsWriter) eventType(r *gen.Route) string {
	if r.Stream.Union != nil {
		return w.tsType(r.Stream.Union)
	}
	return r.Name + "Event"
}

// routeTypes writes the types a route's method answers that the module
// does not already declare: a named-event stream's events, a media route's
// answer.
func (w *tsWriter) routeTypes(r *gen.Route) {
	switch {
	case r.Answer == gen.AnswerStream && r.Stream.Union == nil:
		var alts []string
		for _, e := range r.Stream.Events {
			alts = append(alts, fmt.Sprintf("{ event: %q; data: %s }", e.Name, w.payloadType(&e.Payload)))
		}
		w.typeOnly(func() {
			w.line("")
			w.doc("", "", r.Name+"Event is one event of the "+r.Name+" stream: its name and its decoded data.")
			w.line("export type %sEvent = %s;", r.Name, strings.Join(alts, " | "))
		})
	case r.Answer == gen.AnswerMedia:
		w.typeOnly(func() {
			w.line("")
			w.doc("", "", r.Name+"Answer is what "+r.Name+" answers: its text, and the headers it declares.")
			w.line("export interface %sAnswer {", r.Name)
			w.line("  text: string;")
			for _, p := range r.Media.Headers {
				w.line("  %s: %s;", lowerFirst(p.GoName), w.tsType(p.Type))
			}
			w.line("}")
		})
	}
}

func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// payloadType is the TypeScript type of a body, response or event: With
// objects for a payload declared with a record beside it.
func (w *tsWriter) payloadType(p *gen.Payload) string {
	if p.With == nil {
		return w.tsType(p.Type)
	}
	if p.Type.Kind == gen.TypeSlice {
		return "With<" + w.tsType(p.Type.Elem) + ", " + w.tsType(p.With) + ">[]"
	}
	return "With<" + w.tsType(p.Type) + ", " + w.tsType(p.With) + ">"
}

// payloadDecode is an expression decoding the JSON document v as p.
func (w *tsWriter) payloadDecode(p *gen.Payload, v string) string {
	if p.With == nil {
		return w.topDecode(p.Type, v)
	}
	extra := w.qualified(p.With, "decode")
	if p.Type.Kind == gen.TypeSlice {
		item := w.qualified(p.Type.Elem, "decode")
		return fmt.Sprintf(`_arr(%s, "$", "", (e, p, i) => _with(e, _at(p, i), %s, %s))`, v, item, extra)
	}
	return fmt.Sprintf(`_with(%s, "$", %s, %s)`, v, w.qualified(p.Type, "decode"), extra)
}

// topDecode is an expression decoding the JSON document v as t, at $.
func (w *tsWriter) topDecode(t *gen.Type, v string) string {
	switch {
	case isStruct(t):
		return w.qualified(t, "decode") + "(" + v + ")"
	case t.Kind == gen.TypePointer:
		return fmt.Sprintf("%s === null ? null : %s", v, w.topDecode(t.Elem, v))
	}
	if _, decl, _, ok := w.ref(t); ok && (decl == gen.DeclUnion || decl == gen.DeclEnum || decl == gen.DeclID) {
		return w.qualified(t, "decode") + "(" + v + ")"
	}
	return w.decode(t, v, `"$"`, `""`)
}

// routePath is the expression of a route's path below the client's base,
// its parameters written as text.
func routePath(r *gen.Route) string {
	var parts []string
	lit := ""
	for i, s := range r.Segments {
		if i > 0 {
			lit += "/"
		}
		if s.Param == "" {
			lit += s.Literal
			continue
		}
		if lit != "" {
			parts = append(parts, strconv.Quote(lit))
		}
		lit = ""
		parts = append(parts, "encodeURIComponent(_text("+s.Param+"))")
	}
	if lit != "" || len(parts) == 0 {
		parts = append(parts, strconv.Quote(lit))
	}
	return strings.Join(parts, " + ")
}

// A tsArg is one parameter of a Client method, as code and as declared.
type tsArg struct{ code, decl string }

// routeArgs are a route's method's parameters before its options: the path
// parameters, the required query parameters, the body; and the query
// expression.
func (w *tsWriter) routeArgs(r *gen.Route, options string) (args []tsArg, query string) {
	for _, s := range r.Segments {
		if s.Param != "" {
			t := w.tsType(r.Param(s.Param).Type)
			args = append(args, tsArg{s.Param + ty(": "+t), s.Param + ": " + t})
		}
	}
	var q []string
	var opt []string
	for _, p := range r.Query {
		name := lowerFirst(p.GoName)
		t := w.tsType(p.Type)
		if p.Optional {
			opt = append(opt, name+"?: "+t)
			q = append(q, fmt.Sprintf("%q: %s.%s === undefined ? undefined : _text(%s.%s)", p.Name, options, name, options, name))
			continue
		}
		args = append(args, tsArg{name + ty(": "+t), name + ": " + t})
		q = append(q, fmt.Sprintf("%q: _text(%s)", p.Name, name))
	}
	if r.Body != nil {
		t := w.tsType(r.Body.Type)
		if r.Body.Optional {
			args = append(args, tsArg{"body" + ty("?: "+t), "body?: " + t})
		} else {
			args = append(args, tsArg{"body" + ty(": "+t), "body: " + t})
		}
	}
	query = "undefined"
	if len(q) > 0 {
		query = "{ " + strings.Join(q, ", ") + " }"
	}
	w.queryOpts = opt
	return args, query
}

// routeMethod writes a route's method of Client.
func (w *tsWriter) routeMethod(r *gen.Route) {
	doc := r.Doc
	for _, ref := range r.Refusals {
		doc += fmt.Sprintf("\n\nA %d refusal (a WireError): %s", ref.Status, ref.Doc)
	}
	w.line("")
	text := docText("  ", doc, methodName(r)+" is the route "+r.Method+" "+r.Path+".")
	w.b.WriteString(text)
	w.d.WriteString("\n" + text)
	args, query := w.routeArgs(r, "options")
	optType := "{ signal?: AbortSignal" + strings.Join(prefixAll(", ", w.queryOpts), "") + " }"
	if r.Answer == gen.AnswerStream {
		optType = "StreamOptions"
		if len(w.queryOpts) > 0 {
			optType += " & { " + strings.Join(w.queryOpts, "; ") + " }"
		}
	}
	var code, decl []string
	for _, a := range args {
		code, decl = append(code, a.code), append(decl, a.decl)
	}
	withOpts := func(ret string) {
		code = append(code, "options"+ty(": "+optType)+" = {}")
		decl = append(decl, "options?: "+optType)
		w.d.WriteString(fmt.Sprintf("  %s(%s): %s;\n", methodName(r), strings.Join(decl, ", "), ret))
	}
	path := routePath(r)
	switch r.Answer {
	case gen.AnswerJSON:
		ret := "Promise<" + w.payloadType(r.Response) + ">"
		withOpts(ret)
		body := "undefined"
		if r.Body != nil {
			enc := w.qualified(r.Body.Type, "encode")
			body = enc + "(body)"
			if r.Body.Optional {
				body = "body === undefined ? {} : " + body
			}
		}
		w.line("  async %s(%s)%s {", methodName(r), strings.Join(code, ", "), ty(": "+ret))
		w.line("    const json = await this._json(%q, %s, %s, %s, options.signal);", r.Method, path, query, body)
		w.line("    return %s;", w.payloadDecode(r.Response, "json"))
		w.line("  }")
	case gen.AnswerStream:
		ret := "AsyncGenerator<" + w.eventType(r) + ", void, undefined>"
		withOpts(ret)
		w.line("  async *%s(%s)%s {", methodName(r), strings.Join(code, ", "), ty(": "+ret))
		w.streamBody(r, path, query)
		w.line("  }")
	case gen.AnswerMedia:
		withOpts("Promise<" + r.Name + "Answer>")
		w.mediaMethod(r, code, decl, path, query)
	case gen.AnswerFiles:
		w.d.WriteString(fmt.Sprintf("  %s(file?: string): URL;\n", methodName(r)))
		w.line("  %s(file = \"\")%s {", methodName(r), ty(": URL"))
		w.line("    return this._url(%s + file);", path)
		w.line("  }")
	}
}

// mediaMethod writes a media route's method, which answers its text and
// typed headers, and its URL method, for a link.
func (w *tsWriter) mediaMethod(r *gen.Route, code, decl []string, path, query string) {
	ret := "Promise<" + r.Name + "Answer>"
	w.line("  async %s(%s)%s {", methodName(r), strings.Join(code, ", "), ty(": "+ret))
	w.line("    const res = await this._media(%s, %s, options.signal);", path, query)
	w.line("    return {")
	w.line("      text: res.text,")
	for _, p := range r.Media.Headers {
		int := w.spec.TextOf(p.Type) == gen.TextInt || w.spec.TextOf(p.Type) == gen.TextUint
		w.line("      %s: _header(res.headers, %q, %t)%s,", lowerFirst(p.GoName), p.Name, int, ty(" as "+w.tsType(p.Type)))
	}
	w.line("    };")
	w.line("  }")
	// The URL too, for a link that downloads it: the same parameters,
	// options only for the query.
	ucode, udecl := code[:len(code)-1], decl[:len(decl)-1]
	if len(w.queryOpts) > 0 {
		o := "{ " + strings.Join(w.queryOpts, "; ") + " }"
		ucode, udecl = append(ucode, "options"+ty(": "+o)+" = {}"), append(udecl, "options?: "+o)
	}
	w.d.WriteString(fmt.Sprintf("  /** %sURL is where %s answers from, for a link. */\n  %sURL(%s): URL;\n", methodName(r), methodName(r), methodName(r), strings.Join(udecl, ", ")))
	w.line("")
	w.line("  /** %sURL is where %s answers from, for a link. */", methodName(r), methodName(r))
	w.line("  %sURL(%s)%s {", methodName(r), strings.Join(ucode, ", "), ty(": URL"))
	w.line("    return this._url(%s, %s);", path, query)
	w.line("  }")
}

func prefixAll(p string, list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = p + s
	}
	return out
}

// streamBody writes a stream method's body: the runtime's events, decoded
// by name; an event the route does not declare is skipped, as EventSource
// skips one without a listener.
func (w *tsWriter) streamBody(r *gen.Route, path, query string) {
	ends := "() => false"
	if len(r.Stream.Ends) > 0 {
		var names []string
		for _, e := range r.Stream.Events {
			for _, end := range r.Stream.Ends {
				if e.Variant != nil && e.Variant.Name == end.Name || e.Variant == nil && e.Name == end.Name {
					names = append(names, fmt.Sprintf("n === %q", e.Name))
				}
			}
		}
		ends = "(n) => " + strings.Join(names, " || ")
	}
	w.line("    for await (const ev of this._events(%s, %s, options, %s)) {", path, query, ends)
	w.line("      switch (ev.name) {")
	if r.Stream.Union != nil {
		for _, e := range r.Stream.Events {
			w.line("        case %q:", e.Name)
		}
		w.line("          yield %s;", w.topDecode(r.Stream.Union, "JSON.parse(ev.data)"))
		w.line("          break;")
	} else {
		for _, e := range r.Stream.Events {
			w.line("        case %q:", e.Name)
			w.line("          yield { event: %q, data: %s };", e.Name, w.payloadDecode(&e.Payload, "JSON.parse(ev.data)"))
			w.line("          break;")
		}
	}
	w.line("      }")
	w.line("    }")
}
