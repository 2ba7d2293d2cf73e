package golang

// The Go of a spec's http section (decision 0168): routes.gen.go holds the
// route table (Routes), the Server interface with one method per route,
// each route's request type, and NewHandler, which serves a Server through
// the httproute runtime; emit_streams.go adds each stream's types and
// each media answer's response. Routes are members of the section, so
// they are emitted in spec order.

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
	"github.com/jobgen/jobgen/httproute"
)

const (
	httproutePkg = "github.com/jobgen/jobgen/httproute"
	contextPkg   = "context"
	fsPkg        = "io/fs"
	strconvPkg   = "strconv"
)

// routes emits the routes file.
func (e *emitter) routes(f *jen.File) {
	h := e.spec.HTTP
	f.Comment(doctext.Lines(fmt.Sprintf("This file was generated for version %d of the route runtime, package httproute; "+
		"it does not compile against a runtime that does not support that version.", httproute.MaxVersion), ""))
	f.Const().Defs(
		jen.Id("_").Op("=").Qual(httproutePkg, "EnforceVersion").Call(jen.Lit(httproute.MaxVersion).Op("-").Qual(httproutePkg, "MinVersion")),
		jen.Id("_").Op("=").Qual(httproutePkg, "EnforceVersion").Call(jen.Qual(httproutePkg, "MaxVersion").Op("-").Lit(httproute.MaxVersion)),
	)
	f.Line()
	e.routeTable(f, h)
	f.Line()
	e.server(f, h)
	for _, r := range h.Routes {
		f.Line()
		e.request(f, r)
		switch r.Answer {
		case gen.AnswerStream:
			e.streamTypes(f, r)
		case gen.AnswerMedia:
			e.mediaResponse(f, r)
		}
	}
	f.Line()
	f.Comment(doctext.Lines(fmt.Sprintf("NewHandler returns the handler that serves s on the routes of Routes, "+
		"answering every refusal, its own and the methods', with %s as JSON.", h.Refusal), ""))
	f.Func().Id("NewHandler").Params(jen.Id("s").Id("Server"), jen.Id("opts").Op("...").Qual(httproutePkg, "Option")).Op("*").Qual(httproutePkg, "Handler").Block(
		jen.Return(jen.Qual(httproutePkg, "NewHandler").Call(jen.Id("Routes").Call(), jen.Index().Qual(httproutePkg, "Serve").ValuesFunc(func(g *jen.Group) {
			for _, r := range h.Routes {
				g.Id("serve" + r.Name).Call(jen.Id("s"))
			}
		}), jen.Id("opts").Op("..."))),
	)
	for _, r := range h.Routes {
		f.Line()
		e.serve(f, r)
	}
}

// routeTable emits Routes, whose doc is the table a reader looks for.
func (e *emitter) routeTable(f *jen.File, h *gen.HTTP) {
	f.Comment(tableComment(e.spec))
	refusal := goType(h.Refusal)
	f.Func().Id("Routes").Params().Qual(httproutePkg, "Table").Block(jen.Return(jen.Qual(httproutePkg, "Table").Values(jen.Dict{
		jen.Id("Package"): jen.Lit(e.spec.Package.Name),
		jen.Id("Refusal"): jen.Func().Params(jen.Id("message").String()).Any().Block(
			jen.Return(refusal.Clone().Values(jen.Dict{jen.Id(h.RefusalField().GoName): jen.Id("message")}))),
		jen.Id("Routes"): jen.Index().Qual(httproutePkg, "Route").ValuesFunc(func(g *jen.Group) {
			for _, r := range h.Routes {
				g.Add(e.routeValue(r))
			}
		}),
	})))
}

// tableComment is Routes' doc: a sentence, then one line per route.
func tableComment(s *gen.Spec) string {
	var pathW, nameW int
	for _, r := range s.HTTP.Routes {
		pathW, nameW = max(pathW, len(r.Path)), max(nameW, len(r.Name))
	}
	var b strings.Builder
	b.WriteString(doctext.Lines("Routes returns package "+s.Package.Name+"'s route table: each route's method, "+
		"path, parameters, body, answer and refusals, as Server serves them (the Server method of each route says more).", ""))
	b.WriteString("\n//")
	for _, r := range s.HTTP.Routes {
		fmt.Fprintf(&b, "\n//\t%-6s %-*s  %-*s  %s", r.Method, pathW, r.Path, nameW, r.Name, answerText(r))
	}
	return b.String()
}

// answerText says what a route answers, in a few words.
func answerText(r *gen.Route) string {
	switch r.Answer {
	case gen.AnswerJSON:
		return payloadText(r.Response)
	case gen.AnswerStream:
		if r.Stream.Union != nil {
			return "events of " + r.Stream.Union.String()
		}
		var names []string
		for _, ev := range r.Stream.Events {
			names = append(names, ev.Name+" "+payloadText(&ev.Payload))
		}
		return "events " + strings.Join(names, "; ")
	case gen.AnswerMedia:
		return r.Media.Type
	case gen.AnswerFiles:
		return "files"
	}
	return ""
}

func payloadText(p *gen.Payload) string {
	if p.With != nil {
		return p.Type.String() + " with " + p.With.String()
	}
	return p.Type.String()
}

// routeValue is r's entry in the table.
func (e *emitter) routeValue(r *gen.Route) jen.Code {
	d := jen.Dict{
		jen.Id("Name"):   jen.Lit(r.Name),
		jen.Id("Method"): jen.Lit(r.Method),
		jen.Id("Path"):   jen.Lit(r.Path),
		jen.Id("Answer"): jen.Qual(httproutePkg, [...]string{"", "AnswerJSON", "AnswerStream", "AnswerMedia", "AnswerFiles"}[r.Answer]),
	}
	if r.Doc != "" {
		d[jen.Id("Doc")] = jen.Lit(strings.Join(strings.Fields(r.Doc), " "))
	}
	if r.Public {
		d[jen.Id("Public")] = jen.True()
	}
	if len(r.Params) > 0 {
		d[jen.Id("Params")] = e.paramValues(r.Params)
	}
	if len(r.Query) > 0 {
		d[jen.Id("Query")] = e.paramValues(r.Query)
	}
	if b := r.Body; b != nil {
		bd := jen.Dict{jen.Id("Type"): jen.Lit(b.Type.String()), jen.Id("MaxBytes"): jen.Lit(int(b.MaxBytes))}
		if b.Optional {
			bd[jen.Id("Optional")] = jen.True()
		}
		d[jen.Id("Body")] = jen.Op("&").Qual(httproutePkg, "Body").Values(bd)
	}
	switch r.Answer {
	case gen.AnswerJSON:
		d[jen.Id("Type")] = jen.Lit(payloadText(r.Response))
	case gen.AnswerMedia:
		d[jen.Id("Type")] = jen.Lit(r.Media.Type)
	case gen.AnswerStream:
		d[jen.Id("Events")] = e.eventsValue(r.Stream)
	}
	if len(r.Refusals) > 0 {
		d[jen.Id("Refusals")] = jen.Index().Int().ValuesFunc(func(g *jen.Group) {
			for _, f := range r.Refusals {
				g.Lit(f.Status)
			}
		})
	}
	return jen.Values(d)
}

// paramValues are parameters as the table describes them.
func (e *emitter) paramValues(ps []*gen.RouteParam) jen.Code {
	return jen.Index().Qual(httproutePkg, "Param").ValuesFunc(func(g *jen.Group) {
		for _, p := range ps {
			d := jen.Dict{jen.Id("Name"): jen.Lit(p.Name), jen.Id("Type"): jen.Lit(p.Type.String()), jen.Id("Text"): e.textValue(p.Type)}
			if p.Optional {
				d[jen.Id("Optional")] = jen.True()
			}
			if p.NotFound != "" {
				d[jen.Id("NotFound")] = jen.Lit(p.NotFound)
			}
			g.Values(d)
		}
	})
}

// textValue is how the table says a parameter's type is written.
func (e *emitter) textValue(t *gen.Type) jen.Code {
	kind := e.spec.TextOf(t)
	d := jen.Dict{jen.Id("Kind"): jen.Qual(httproutePkg, [...]string{"", "TextString", "TextBool", "TextInt", "TextUint", "TextUUID", "TextStringID", "TextEnum"}[kind])}
	switch kind {
	case gen.TextInt, gen.TextUint:
		d[jen.Id("Bits")] = jen.Lit(t.Scalar().Bits)
	case gen.TextEnum:
		x, name := e.spec.IndexOf(t)
		d[jen.Id("Values")] = jen.Index().String().ValuesFunc(func(g *jen.Group) {
			for _, v := range x.Enums[name].Values {
				g.Lit(v.Value)
			}
		})
	}
	return jen.Qual(httproutePkg, "Text").Values(d)
}

// eventsValue is a stream's events as the table describes them.
func (e *emitter) eventsValue(s *gen.Stream) jen.Code {
	d := jen.Dict{jen.Id("Names"): jen.Index().String().ValuesFunc(func(g *jen.Group) {
		for _, ev := range s.Events {
			g.Lit(ev.Name)
		}
	})}
	if s.Resume != nil {
		d[jen.Id("Resume")] = jen.Lit(s.Resume.Query.Name)
	}
	if len(s.Ends) > 0 {
		d[jen.Id("Ends")] = jen.Index().String().ValuesFunc(func(g *jen.Group) {
			for _, end := range s.Ends {
				g.Lit(eventOf(s, end.Name).Name)
			}
		})
	}
	return jen.Op("&").Qual(httproutePkg, "Events").Values(d)
}

// eventOf is the event of s a resume id or an end names: a variant's name
// for a union stream, the event's own otherwise.
func eventOf(s *gen.Stream, ref string) *gen.StreamEvent {
	for _, ev := range s.Events {
		if (ev.Variant != nil && ev.Variant.Name == ref) || (ev.Variant == nil && ev.Name == ref) {
			return ev
		}
	}
	panic("gen: stream event " + ref + " not found") // Validate rules this out
}

// server emits the Server interface.
func (e *emitter) server(f *jen.File, h *gen.HTTP) {
	declComment(f, h.Doc, "Server serves the routes of package "+e.spec.Package.Name+"'s wire, one method per route.")
	f.Type().Id("Server").InterfaceFunc(func(g *jen.Group) {
		for _, r := range h.Routes {
			g.Add(jen.Comment(methodDoc(r)).Line().Id(r.Name).Add(e.signature(r)))
		}
	})
}

// methodDoc is a Server method's doc: the route's, its method and path,
// and its refusals.
func methodDoc(r *gen.Route) string {
	doc := strings.TrimSpace(r.Doc)
	if doc == "" {
		doc = r.Name + " serves " + r.Method + " " + r.Path + "."
	}
	doc += "\n\n\t" + r.Method + " " + r.Path
	if len(r.Refusals) > 0 {
		doc += "\n\nIt refuses with:"
		for _, f := range r.Refusals {
			doc += fmt.Sprintf("\n  - %d: %s", f.Status, strings.Join(strings.Fields(f.Doc), " "))
		}
	}
	return doctext.Lines(doc, "")
}

// signature is a route's Server method's parameters and results.
func (e *emitter) signature(r *gen.Route) *jen.Statement {
	params := []jen.Code{jen.Id("ctx").Qual(contextPkg, "Context"), jen.Id("req").Id(r.Name + "Request")}
	switch r.Answer {
	case gen.AnswerStream:
		return jen.Params(append(params, jen.Id("stream").Id(r.Name+"Stream"))...).Error()
	case gen.AnswerMedia:
		return jen.Params(params...).Params(jen.Id(r.Name+"Response"), jen.Error())
	case gen.AnswerFiles:
		return jen.Params(params...).Params(jen.Qual(fsPkg, "FS"), jen.Error())
	}
	return jen.Params(params...).Params(payloadGoType(r.Response), jen.Error())
}

// payloadGoType is a payload's Go type: its own, or httproute.With it and
// its with record (for a list, each element).
func payloadGoType(p *gen.Payload) *jen.Statement {
	if p.With == nil {
		return goType(p.Type)
	}
	if p.Type.Kind == gen.TypeSlice {
		return jen.Index().Qual(httproutePkg, "With").Types(goType(p.Type.Elem), goType(p.With))
	}
	return jen.Qual(httproutePkg, "With").Types(goType(p.Type), goType(p.With))
}

// request emits a route's request type: its parameters, typed, and its body.
func (e *emitter) request(f *jen.File, r *gen.Route) {
	name := r.Name + "Request"
	f.Comment(doctext.Lines(fmt.Sprintf("%s is what a request to %s (%s %s) carries, decoded.", name, r.Name, r.Method, r.Path), ""))
	f.Type().Id(name).StructFunc(func(g *jen.Group) {
		for _, p := range r.Params {
			g.Add(withDoc(p.Doc, jen.Id(p.GoName).Add(goType(p.Type))))
		}
		for _, p := range r.Query {
			t := goType(p.Type)
			doc := p.Doc
			if p.Optional {
				t = jen.Op("*").Add(t)
				doc = strings.TrimSpace(doc + "\n\nIt is nil when the request does not send it.")
			}
			g.Add(withDoc(doc, jen.Id(p.GoName).Add(t)))
		}
		if b := r.Body; b != nil {
			doc := "Body is the request's body."
			if b.Optional {
				doc = "Body is the request's body; zero when the request sends none."
			}
			g.Add(withDoc(doc, jen.Id("Body").Add(goType(b.Type))))
		}
	})
}
