package golang

// The Go client of a spec's http section (decision 0205): client.gen.go
// holds Client, with one method per route taking the route's own request
// type (the one its Server method takes), over httproute's Client: a JSON
// answer decoded as the Server method returns it, a stream as an
// iter.Seq2 of its decoded events that ends after an event that ends it,
// a media answer as the route's Response, files as bytes.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

const (
	encodingJSONPkg = "encoding/json"
	urlPkg          = "net/url"
	iterPkg         = "iter"
)

// client emits the client file.
func (e *emitter) client(f *jen.File) {
	h := e.spec.HTTP
	pkg := e.spec.Package.Name
	f.Comment(doctext.Lines(fmt.Sprintf("A Client calls the routes of package %s's wire on one server, a method per route: "+
		"each takes the route's request, as its Server method does, and answers what the Server method returns; "+
		"a refusal is an *httproute.WireError with the message of its %s.", pkg, h.Refusal), ""))
	f.Type().Id("Client").Struct(jen.Id("c").Op("*").Qual(httproutePkg, "Client"))
	f.Line()
	f.Comment(doctext.Lines("NewClient returns a Client of the server whose root is base (http://host:port/), calling it as opts say (httproute.WithHeader, WithHTTPClient, WithRetries, WithSleep).", ""))
	f.Func().Id("NewClient").Params(jen.Id("base").String(), jen.Id("opts").Op("...").Qual(httproutePkg, "ClientOption")).Params(jen.Op("*").Id("Client"), jen.Error()).Block(
		jen.List(jen.Id("c"), jen.Err()).Op(":=").Qual(httproutePkg, "NewClient").Call(jen.Id("base"), jen.Func().Params(jen.Id("body").Index().Byte()).Params(jen.String(), jen.Error()).Block(
			jen.Var().Id("v").Add(goType(h.Refusal)),
			jen.Err().Op(":=").Qual(encodingJSONPkg, "Unmarshal").Call(jen.Id("body"), jen.Op("&").Id("v")),
			jen.Return(jen.Id("v").Dot(h.RefusalField().GoName), jen.Err()),
		), jen.Id("opts").Op("...")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id("Client").Values(jen.Id("c")), jen.Nil()),
	)
	for _, r := range h.Routes {
		if r.Answer == gen.AnswerStream && r.Stream.Union == nil && len(r.Stream.Events) > 1 {
			f.Line()
			e.received(f, r)
		}
	}
	for _, r := range h.Routes {
		f.Line()
		e.clientMethod(f, r)
	}
}

// received emits the type a stream of several named events yields: its
// name, and its data decoded in the field of that name.
func (e *emitter) received(f *jen.File, r *gen.Route) {
	f.Comment(doctext.Lines(fmt.Sprintf("%sReceived is one event of %s's stream, as the Client reads it: its name, and its data in the field of that name.", r.Name, r.Name), ""))
	f.Type().Id(r.Name + "Received").StructFunc(func(g *jen.Group) {
		g.Add(withDoc("Name is the event's name.", jen.Id("Name").String()))
		for _, ev := range r.Stream.Events {
			g.Add(withDoc(fmt.Sprintf("%s is the data of a %s event; nil for another.", gen.GoName(ev.Name), ev.Name), jen.Id(gen.GoName(ev.Name)).Op("*").Add(payloadGoType(&ev.Payload))))
		}
	})
}

// clientMethod emits the Client method of r.
func (e *emitter) clientMethod(f *jen.File, r *gen.Route) {
	doc := strings.TrimSpace(r.Doc)
	if doc == "" {
		doc = r.Name + " calls " + r.Method + " " + r.Path + "."
	}
	doc += "\n\n\t" + r.Method + " " + r.Path
	if r.Answer == gen.AnswerStream {
		doc += "\n\nThe stream reconnects after a dropped connection"
		if r.Stream.Resume != nil {
			doc += " where it was (Last-Event-ID)"
		}
		doc += ", within the retry budget of the client's options; its error, if any, is its last element."
	}
	f.Comment(doctext.Lines(doc, ""))
	params := []jen.Code{jen.Id("ctx").Qual(contextPkg, "Context"), jen.Id("req").Id(r.Name + "Request")}
	if r.Answer == gen.AnswerFiles {
		params = append(params, jen.Id("name").String())
	}
	var results *jen.Statement
	switch r.Answer {
	case gen.AnswerJSON:
		results = jen.Params(payloadGoType(r.Response), jen.Error())
	case gen.AnswerMedia:
		results = jen.Params(jen.Id(r.Name+"Response"), jen.Error())
	case gen.AnswerFiles:
		results = jen.Params(jen.Index().Byte(), jen.Error())
	case gen.AnswerStream:
		results = jen.Qual(iterPkg, "Seq2").Types(e.streamItem(r), jen.Error())
	}
	f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id(r.Name).Params(params...).Add(results).BlockFunc(func(g *jen.Group) {
		if len(r.Params) == 0 && len(r.Query) == 0 && r.Body == nil {
			g.Id("_").Op("=").Id("req")
		}
		g.Id("path").Op(":=").Add(e.clientPath(r))
		e.clientQuery(g, r)
		switch r.Answer {
		case gen.AnswerStream:
			e.clientStream(g, r)
			return
		case gen.AnswerJSON:
			g.Var().Id("v").Add(payloadGoType(r.Response))
		case gen.AnswerMedia:
			g.Var().Id("v").Id(r.Name + "Response")
		}
		zero := jen.Id("v")
		if r.Answer == gen.AnswerFiles {
			zero = jen.Nil()
		}
		body := jen.Nil()
		if r.Body != nil {
			g.List(jen.Id("body"), jen.Err()).Op(":=").Qual(httproutePkg, "EncodeBody").Call(jen.Id("req").Dot("Body"), jen.Lit(r.Body.Optional))
			g.If(jen.Err().Op("!=").Nil()).Block(jen.Return(zero, jen.Qual("fmt", "Errorf").Call(jen.Lit(e.spec.Package.Name+": "+r.Name+": encoding the body: %w"), jen.Err())))
			body = jen.Id("body")
		}
		res := jen.Id("_")
		if r.Answer == gen.AnswerMedia {
			res = jen.Id("res")
		}
		g.List(res, jen.Id("data"), jen.Err()).Op(":=").Id("c").Dot("c").Dot("Do").Call(jen.Id("ctx"), jen.Lit(r.Method), jen.Id("path"), jen.Id("query"), body)
		g.If(jen.Err().Op("!=").Nil()).Block(jen.Return(zero, jen.Err()))
		e.clientAnswer(g, r)
	})
}

// clientQuery writes the query of a request: each parameter set as text,
// an optional one when the request has it.
func (e *emitter) clientQuery(g *jen.Group, r *gen.Route) {
	if len(r.Query) > 0 {
		g.Id("query").Op(":=").Qual(urlPkg, "Values").Values()
		for _, p := range r.Query {
			set := jen.Id("query").Dot("Set").Call(jen.Lit(p.Name), textFormat(e.spec.TextOf(p.Type), jen.Id("req").Dot(p.GoName)))
			if p.Optional {
				set = jen.If(jen.Id("req").Dot(p.GoName).Op("!=").Nil()).Block(
					jen.Id("query").Dot("Set").Call(jen.Lit(p.Name), textFormat(e.spec.TextOf(p.Type), jen.Op("*").Id("req").Dot(p.GoName))))
			}
			g.Add(set)
		}
	} else {
		g.Var().Id("query").Qual(urlPkg, "Values")
	}
}

// clientAnswer writes the reading of a call's answer, once it is a 2xx.
func (e *emitter) clientAnswer(g *jen.Group, r *gen.Route) {
	switch r.Answer {
	case gen.AnswerFiles:
		g.Return(jen.Id("data"), jen.Nil())
	case gen.AnswerJSON:
		g.If(jen.Err().Op(":=").Qual(encodingJSONPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("v")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Id("v"), jen.Qual("fmt", "Errorf").Call(jen.Lit(e.spec.Package.Name+": "+r.Name+": the answer: %w"), jen.Err())))
		g.Return(jen.Id("v"), jen.Nil())
	case gen.AnswerMedia:
		g.Id("v").Dot("Body").Op("=").Id("data")
		for _, hd := range r.Media.Headers {
			g.If(jen.Id("text").Op(":=").Id("res").Dot("Header").Dot("Get").Call(jen.Lit(hd.Name)), jen.Id("text").Op("!=").Lit("")).Block(
				jen.List(jen.Id("x"), jen.Err()).Op(":=").Add(e.textParse(hd.Type, jen.Id("text"))),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("v"), jen.Qual("fmt", "Errorf").Call(jen.Lit(e.spec.Package.Name+": "+r.Name+": header "+hd.Name+": %w"), jen.Err()))),
				jen.Id("v").Dot(hd.GoName).Op("=").Id("x"),
			)
		}
		g.Return(jen.Id("v"), jen.Nil())
	}
}

// clientPath is the expression of r's path below the client's base: the
// path without its leading slash, each parameter written as text and
// escaped.
func (e *emitter) clientPath(r *gen.Route) *jen.Statement {
	var parts []jen.Code
	lit := ""
	for i, sg := range r.Segments {
		if i > 0 {
			lit += "/"
		}
		if sg.Param == "" {
			lit += sg.Literal
			continue
		}
		if len(parts) == 0 {
			lit = strings.TrimPrefix(lit, "/")
		}
		if lit != "" {
			parts = append(parts, jen.Lit(lit))
		}
		lit = ""
		p := r.Param(sg.Param)
		parts = append(parts, jen.Qual(httproutePkg, "Escape").Call(textFormat(e.spec.TextOf(p.Type), jen.Id("req").Dot(p.GoName))))
	}
	if len(parts) == 0 {
		lit = strings.TrimPrefix(lit, "/")
	}
	if lit != "" || (len(parts) == 0 && r.Answer != gen.AnswerFiles) {
		parts = append(parts, jen.Lit(lit))
	}
	if r.Answer == gen.AnswerFiles {
		parts = append(parts, jen.Qual(httproutePkg, "EscapeFile").Call(jen.Id("name")))
	}
	st := jen.Add(parts[0])
	for _, p := range parts[1:] {
		st = st.Op("+").Add(p)
	}
	return st
}

// streamItem is the type a stream's iterator yields.
func (e *emitter) streamItem(r *gen.Route) jen.Code {
	s := r.Stream
	switch {
	case s.Union != nil:
		return goType(s.Union)
	case len(s.Events) == 1:
		return payloadGoType(&s.Events[0].Payload)
	case len(s.Events) == 0:
		return jen.Struct()
	}
	return jen.Id(r.Name + "Received")
}

// clientStream writes a stream method's body: the runtime's events, each
// decoded and yielded, until the caller stops, an event ends the stream,
// or an error, which is the last element.
func (e *emitter) clientStream(g *jen.Group, r *gen.Route) {
	s := r.Stream
	item := e.streamItem(r)
	ends := func(ev *gen.StreamEvent) bool {
		return slices.ContainsFunc(s.Ends, func(ref gen.Ref) bool {
			return (ev.Variant != nil && ev.Variant.Name == ref.Name) || (ev.Variant == nil && ev.Name == ref.Name)
		})
	}
	names := jen.Index().String().ValuesFunc(func(g *jen.Group) {
		for _, ev := range s.Events {
			g.Lit(ev.Name)
		}
	})
	fail := func(what string) jen.Code {
		return jen.Id("yield").Call(jen.Id("zero"), jen.Qual("fmt", "Errorf").Call(jen.Lit(e.spec.Package.Name+": "+r.Name+": "+what+": %w"), jen.Err()))
	}
	g.Return(jen.Func().Params(jen.Id("yield").Func().Params(item, jen.Error()).Bool()).BlockFunc(func(g *jen.Group) {
		g.Var().Id("zero").Add(item)
		g.For(jen.List(jen.Id("ev"), jen.Err()).Op(":=").Range().Id("c").Dot("c").Dot("Stream").Call(jen.Id("ctx"), jen.Id("path"), jen.Id("query"), names, jen.Lit(s.Resume != nil))).BlockFunc(func(g *jen.Group) {
			g.If(jen.Err().Op("!=").Nil()).Block(jen.Id("yield").Call(jen.Id("zero"), jen.Err()), jen.Return())
			switch {
			case s.Union != nil:
				g.List(jen.Id("v"), jen.Err()).Op(":=").Add(e.unionDecode(s.Union)).Call(jen.Id("ev").Dot("Data"))
				g.If(jen.Err().Op("!=").Nil()).Block(fail("an event"), jen.Return())
				g.If(jen.Op("!").Id("yield").Call(jen.Id("v"), jen.Nil())).Block(jen.Return())
				var cases []jen.Code
				for _, ev := range s.Events {
					if ends(ev) {
						cases = append(cases, jen.Add(e.variantType(s.Union, ev.Variant)))
					}
				}
				if len(cases) > 0 {
					g.Switch(jen.Id("v").Assert(jen.Type())).Block(jen.Case(cases...).Block(jen.Return()))
				}
			case len(s.Events) == 1:
				g.Var().Id("v").Add(item)
				g.If(jen.Err().Op(":=").Qual(encodingJSONPkg, "Unmarshal").Call(jen.Id("ev").Dot("Data"), jen.Op("&").Id("v")), jen.Err().Op("!=").Nil()).Block(fail("event "+s.Events[0].Name), jen.Return())
				g.If(jen.Op("!").Id("yield").Call(jen.Id("v"), jen.Nil())).Block(jen.Return())
				if ends(s.Events[0]) {
					g.Return()
				}
			case len(s.Events) == 0:
				g.If(jen.Op("!").Id("yield").Call(jen.Id("zero"), jen.Nil())).Block(jen.Return())
			default:
				g.Id("v").Op(":=").Id(r.Name + "Received").Values(jen.Dict{jen.Id("Name"): jen.Id("ev").Dot("Name")})
				g.Switch(jen.Id("ev").Dot("Name")).BlockFunc(func(g *jen.Group) {
					for _, ev := range s.Events {
						field := gen.GoName(ev.Name)
						g.Case(jen.Lit(ev.Name)).Block(
							jen.Id("v").Dot(field).Op("=").New(payloadGoType(&ev.Payload)),
							jen.If(jen.Err().Op(":=").Qual(encodingJSONPkg, "Unmarshal").Call(jen.Id("ev").Dot("Data"), jen.Id("v").Dot(field)), jen.Err().Op("!=").Nil()).Block(fail("event "+ev.Name), jen.Return()),
						)
					}
				})
				g.If(jen.Op("!").Id("yield").Call(jen.Id("v"), jen.Nil())).Block(jen.Return())
				var endNames []jen.Code
				for _, ev := range s.Events {
					if ends(ev) {
						endNames = append(endNames, jen.Lit(ev.Name))
					}
				}
				if len(endNames) > 0 {
					g.Switch(jen.Id("ev").Dot("Name")).Block(jen.Case(endNames...).Block(jen.Return()))
				}
			}
		})
	}))
}

// unionDecode is the Decode function of union type u.
func (e *emitter) unionDecode(u *gen.Type) *jen.Statement {
	if u.Kind == gen.TypeQualified {
		return jen.Qual(u.Pkg, "Decode"+u.Name)
	}
	return jen.Id("Decode" + u.Name)
}

// variantType is the Go type of union u's variant v, in u's package.
func (e *emitter) variantType(u *gen.Type, v *gen.Variant) *jen.Statement {
	if u.Kind == gen.TypeQualified {
		return jen.Qual(u.Pkg, v.Name)
	}
	return jen.Id(v.Name)
}
