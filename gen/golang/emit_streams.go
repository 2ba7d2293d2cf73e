package golang

// The Go of each route's serving (serve<Route>: the request decoded, the
// method called, its answer encoded), of each stream's types (its stream,
// its event encoded once, and their constructors) and of each media
// answer's response, with the text of parameters and headers both ways.

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// serve emits serve<Route>, which decodes a request in the adapter's order
// (path, query, body), calls the method and answers what it returns.
func (e *emitter) serve(f *jen.File, r *gen.Route) {
	f.Func().Id("serve"+r.Name).Params(jen.Id("s").Id("Server")).Qual(httproutePkg, "Serve").Block(
		jen.Return(jen.Func().Params(jen.Id("c").Op("*").Qual(httproutePkg, "Call")).Error().BlockFunc(func(g *jen.Group) {
			g.Var().Id("req").Id(r.Name + "Request")
			for _, p := range r.Params {
				g.Block(
					jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(e.textParse(p.Type, jen.Id("c").Dot("Path").Call(jen.Lit(p.Name)))),
					jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("c").Dot("BadPath").Call(jen.Lit(p.Name), jen.Err()))),
					jen.Id("req").Dot(p.GoName).Op("=").Id("v"),
				)
			}
			for _, p := range r.Query {
				set := jen.Id("req").Dot(p.GoName).Op("=").Id("v")
				if p.Optional {
					set = jen.Id("req").Dot(p.GoName).Op("=").Op("&").Id("v")
				}
				parse := []jen.Code{
					jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(e.textParse(p.Type, jen.Id("text"))),
					jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("c").Dot("BadQuery").Call(jen.Lit(p.Name), jen.Err()))),
					set,
				}
				g.If(jen.List(jen.Id("text"), jen.Id("ok"), jen.Err()).Op(":=").Id("c").Dot("Query").Call(jen.Lit(p.Name)), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Err()),
				).Else().If(jen.Id("ok")).Block(parse...)
			}
			if r.Body != nil {
				g.If(jen.Err().Op(":=").Id("c").Dot("Body").Call(jen.Op("&").Id("req").Dot("Body")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
			}
			e.answer(g, r)
		})),
	)
}

// answer emits the call of r's method and the encoding of its answer.
func (e *emitter) answer(g *jen.Group, r *gen.Route) {
	call := jen.Id("s").Dot(r.Name)
	args := []jen.Code{jen.Id("c").Dot("Context").Call(), jen.Id("req")}
	if r.Answer == gen.AnswerStream {
		g.Return(call.Call(append(args, jen.Id(r.Name+"Stream").Values(jen.Id("c").Dot("Stream").Call()))...))
		return
	}
	g.List(jen.Id("v"), jen.Err()).Op(":=").Add(call.Call(args...))
	g.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
	switch r.Answer {
	case gen.AnswerMedia:
		headers := []jen.Code{jen.Id("v").Dot("Body")}
		for _, h := range r.Media.Headers {
			headers = append(headers, jen.Lit(h.Name), textFormat(e.spec.TextOf(h.Type), jen.Id("v").Dot(h.GoName)))
		}
		g.Return(jen.Id("c").Dot("Media").Call(headers...))
	case gen.AnswerFiles:
		g.Return(jen.Id("c").Dot("Files").Call(jen.Id("v")))
	default:
		g.Return(jen.Id("c").Dot("JSON").Call(jen.Id("v")))
	}
}

// textParse is an expression of (T, error) that reads text as t.
func (e *emitter) textParse(t *gen.Type, text jen.Code) *jen.Statement {
	switch e.spec.TextOf(t) {
	case gen.TextUUID:
		if t.Kind == gen.TypeQualified {
			return jen.Qual(t.Pkg, "Parse"+t.Name).Call(text)
		}
		return jen.Id("Parse" + t.Name).Call(text)
	case gen.TextEnum:
		return jen.Qual(httproutePkg, "Enum").Types(goType(t)).Call(text)
	case gen.TextInt:
		return jen.Qual(httproutePkg, "Int").Types(goType(t)).Call(text, jen.Lit(t.Scalar().Bits))
	case gen.TextUint:
		return jen.Qual(httproutePkg, "Uint").Types(goType(t)).Call(text, jen.Lit(t.Scalar().Bits))
	case gen.TextBool:
		return jen.Qual(httproutePkg, "ParseBool").Call(text)
	}
	return jen.Qual(httproutePkg, "String").Types(goType(t)).Call(text)
}

// textFormat is a string expression that writes v, of a type written as
// kind, as text.
func textFormat(kind gen.TextKind, v jen.Code) *jen.Statement {
	switch kind {
	case gen.TextUUID:
		return jen.Add(v).Dot("String").Call()
	case gen.TextInt:
		return jen.Qual(strconvPkg, "FormatInt").Call(jen.Int64().Call(v), jen.Lit(10))
	case gen.TextUint:
		return jen.Qual(strconvPkg, "FormatUint").Call(jen.Uint64().Call(v), jen.Lit(10))
	case gen.TextBool:
		return jen.Qual(strconvPkg, "FormatBool").Call(v)
	}
	return jen.String().Call(v)
}

// streamTypes emits a stream route's stream and event types.
func (e *emitter) streamTypes(f *jen.File, r *gen.Route) {
	s, stream, event := r.Stream, r.Name+"Stream", r.Name+"Event"
	f.Comment(doctext.Lines(fmt.Sprintf("%s is where %s writes its events. It starts with the first event, so the method may refuse until then; "+
		"a write that fails ends the method's context.", stream, r.Name), ""))
	f.Type().Id(stream).Struct(jen.Id("s").Op("*").Qual(httproutePkg, "Stream"))
	f.Line()
	f.Comment(doctext.Lines(fmt.Sprintf("A %s is one event of %s's stream, encoded once: any number of streams may write it.", event, r.Name), ""))
	f.Type().Id(event).Struct(jen.Qual(httproutePkg, "Event"))
	f.Line()
	f.Comment("Write writes events, each encoded once, and flushes them, under one write deadline.")
	f.Func().Params(jen.Id("s").Id(stream)).Id("Write").Params(jen.Id("events").Op("...").Id(event)).Error().Block(
		jen.Return(jen.Qual(httproutePkg, "WriteEvents").Call(jen.Id("s").Dot("s"), jen.Id("events"))),
	)
	f.Line()
	f.Comment("Retry tells the client how long to wait before it reconnects.")
	f.Func().Params(jen.Id("s").Id(stream)).Id("Retry").Params(jen.Id("d").Qual("time", "Duration")).Error().Block(
		jen.Return(jen.Id("s").Dot("s").Dot("Retry").Call(jen.Id("d"))),
	)
	if s.Union != nil {
		e.unionEvent(f, r)
		return
	}
	for _, ev := range s.Events {
		e.namedEvent(f, r, ev)
	}
}

// unionEvent emits a union stream's Send and New<Route>Event: each variant
// named by its tag, with its resume id.
func (e *emitter) unionEvent(f *jen.File, r *gen.Route) {
	s, stream, event := r.Stream, r.Name+"Stream", r.Name+"Event"
	ctor := "New" + event
	f.Line()
	f.Comment("Send writes one event and flushes it.")
	f.Func().Params(jen.Id("s").Id(stream)).Id("Send").Params(jen.Id("v").Add(goType(s.Union))).Error().Block(
		jen.List(jen.Id("ev"), jen.Err()).Op(":=").Id(ctor).Call(jen.Id("v")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Return(jen.Id("s").Dot("Write").Call(jen.Id("ev"))),
	)
	f.Line()
	f.Comment(doctext.Lines(fmt.Sprintf("%s encodes v as its event: named by its variant's tag, with the id a client resumes from.", ctor), ""))
	f.Func().Id(ctor).Params(jen.Id("v").Add(goType(s.Union))).Params(jen.Id(event), jen.Error()).BlockFunc(func(g *jen.Group) {
		g.Switch(jen.Id("v").Op(":=").Id("v").Assert(jen.Type())).BlockFunc(func(g *jen.Group) {
			for _, ev := range s.Events {
				g.Case(goType(ev.Type)).Block(
					jen.List(jen.Id("data"), jen.Err()).Op(":=").Id("v").Dot("MarshalJSON").Call(),
					jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id(event).Values(), jen.Err())),
					jen.Return(jen.Id(event).Values(jen.Qual(httproutePkg, "NewEvent").Call(jen.Lit(ev.Name), e.resumeID(s, ev), jen.Id("data"))), jen.Nil()),
				)
			}
		})
		g.Return(jen.Id(event).Values(), e.errorf(r.Name+": %T is no event of the stream", jen.Id("v")))
	})
}

// namedEvent emits a named event's Send<Event> and New<Route><Event>Event.
func (e *emitter) namedEvent(f *jen.File, r *gen.Route, ev *gen.StreamEvent) {
	stream, event := r.Name+"Stream", r.Name+"Event"
	word := gen.GoName(ev.Name)
	ctor := "New" + r.Name + word + "Event"
	t := payloadGoType(&ev.Payload)
	f.Line()
	f.Comment(doctext.Lines(fmt.Sprintf("Send%s writes one %s event and flushes it.", word, ev.Name), ""))
	f.Func().Params(jen.Id("s").Id(stream)).Id("Send"+word).Params(jen.Id("v").Add(t.Clone())).Error().Block(
		jen.List(jen.Id("ev"), jen.Err()).Op(":=").Id(ctor).Call(jen.Id("v")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Return(jen.Id("s").Dot("Write").Call(jen.Id("ev"))),
	)
	f.Line()
	doc := fmt.Sprintf("%s encodes v as a %s event.", ctor, ev.Name)
	if ev.Doc != "" {
		doc += " " + ev.Doc
	}
	f.Comment(doctext.Lines(doc, ""))
	f.Func().Id(ctor).Params(jen.Id("v").Add(t)).Params(jen.Id(event), jen.Error()).Block(
		jen.List(jen.Id("data"), jen.Err()).Op(":=").Qual(httproutePkg, "EncodeJSON").Call(jen.Id("v")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id(event).Values(), jen.Err())),
		jen.Return(jen.Id(event).Values(jen.Qual(httproutePkg, "NewEvent").Call(jen.Lit(ev.Name), e.resumeID(r.Stream, ev), jen.Id("data"))), jen.Nil()),
	)
}

// resumeID is the expression of ev's id: the text of its resume field, or
// "" for an event without one.
func (e *emitter) resumeID(s *gen.Stream, ev *gen.StreamEvent) jen.Code {
	if s.Resume == nil {
		return jen.Lit("")
	}
	for _, id := range s.Resume.IDs {
		if eventOf(s, id.Event.Name) == ev && id.Of != nil {
			return textFormat(id.Text, jen.Id("v").Dot(id.Of.GoName))
		}
	}
	return jen.Lit("")
}

// mediaResponse emits a media route's response: the bytes and each header,
// typed.
func (e *emitter) mediaResponse(f *jen.File, r *gen.Route) {
	name := r.Name + "Response"
	f.Line()
	f.Comment(doctext.Lines(fmt.Sprintf("%s is what %s answers: bytes of %s, and its headers (an empty one is not sent).", name, r.Name, r.Media.Type), ""))
	f.Type().Id(name).StructFunc(func(g *jen.Group) {
		g.Add(withDoc("Body is the answer's bytes.", jen.Id("Body").Index().Byte()))
		for _, h := range r.Media.Headers {
			g.Add(withDoc(h.Doc, jen.Id(h.GoName).Add(goType(h.Type))))
		}
	})
}
