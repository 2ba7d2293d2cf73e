package golang

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// codec emits the guard that ties the package to the runtime it was generated
// for, and the runtime's errors under the package's own names.
func (e *emitter) codec(f *jen.File) {
	errs := []struct{ name, doc string }{
		{"ErrInvalidEnum", "ErrInvalidEnum reports a value outside an enum, when encoding or decoding."},
		{"ErrMissingField", "ErrMissingField reports JSON that lacks a required field."},
		{"ErrUnknownVariant", "ErrUnknownVariant reports a union discriminator value this build does not know."},
		{"ErrWrongVariant", "ErrWrongVariant reports JSON decoded as one variant of a union whose discriminator names another."},
		{"ErrAmbiguousKey", "ErrAmbiguousKey reports a JSON object with a key twice, or with a key that differs from a field's name only in case."},
		{"ErrInvalidID", "ErrInvalidID reports an identifier that is not in its canonical form."},
	}
	if len(e.spec.Facts) > 0 {
		errs = append(errs,
			struct{ name, doc string }{"ErrUnknownFact", "ErrUnknownFact reports a fact type or version this build does not decode:\nwritten by a newer build or another vocabulary, or retired from the spec."},
			struct{ name, doc string }{"ErrUnknownVersion", "ErrUnknownVersion reports a known fact type at a version this build does not\ndecode. It wraps ErrUnknownFact."},
		)
	}
	f.Comment(doctext.Lines(fmt.Sprintf("This package was generated for version %d of the jobgen runtime, package codec; it does not compile against a runtime that does not support that version. Regenerate it with the jobgen of the codec it is built with.", codec.MaxVersion), ""))
	f.Const().Defs(
		jen.Id("_").Op("=").Qual(codecPkg, "EnforceVersion").Call(jen.Lit(codec.MaxVersion).Op("-").Qual(codecPkg, "MinVersion")),
		jen.Id("_").Op("=").Qual(codecPkg, "EnforceVersion").Call(jen.Qual(codecPkg, "MaxVersion").Op("-").Lit(codec.MaxVersion)),
	)
	f.Line()
	f.Comment(doctext.Lines("Errors callers can test for with errors.Is. They are the values of package codec, which a tool that knows no vocabulary tests for.", ""))
	f.Var().DefsFunc(func(g *jen.Group) {
		for _, er := range errs {
			g.Comment(doctext.Lines(er.doc, ""))
			g.Id(er.name).Op("=").Qual(codecPkg, er.name)
		}
	})
}

// missingField is code for the error reporting that the JSON for typ lacks field.
func (e *emitter) missingField(typ, field string) *jen.Statement {
	return jen.Qual(codecPkg, "MissingField").Call(jen.Lit(e.spec.Package.Name+"."+typ), jen.Lit(field))
}

func (e *emitter) ids(f *jen.File) {
	for _, id := range gen.SortedBy(e.spec.IDs, func(d *gen.ID) string { return d.Name }) {
		declComment(f, id.Doc, id.Name+" is an identifier.")
		r := recv(id.Name)
		if id.Kind == gen.IDString {
			f.Type().Id(id.Name).String()
			continue
		}
		f.Type().Id(id.Name).Qual(uuidPkg, "UUID")
		f.Line()
		f.Commentf("New%s returns a new random %s.", id.Name, id.Name)
		f.Func().Id("New" + id.Name).Params().Id(id.Name).Block(
			jen.Return(jen.Id(id.Name).Call(jen.Qual(uuidPkg, "New").Call())),
		)
		f.Line()
		f.Comment(doctext.Lines(fmt.Sprintf("Parse%s parses the text form of a %s, exactly as String writes it; other spellings of a UUID and the nil UUID are errors wrapping ErrInvalidID.", id.Name, id.Name), ""))
		f.Func().Id("Parse"+id.Name).Params(jen.Id("s").String()).Params(jen.Id(id.Name), jen.Error()).Block(
			jen.List(jen.Id("u"), jen.Err()).Op(":=").Qual(codecPkg, "ParseUUID").Call(jen.Index().Byte().Call(jen.Id("s"))),
			jen.If(jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Id(id.Name).Values(), e.errorf(id.Name+" %q: %w", jen.Id("s"), jen.Err())),
			),
			jen.Return(jen.Id(id.Name).Call(jen.Id("u")), jen.Nil()),
		)
		f.Line()
		f.Commentf("String returns the canonical text form of %s.", r)
		f.Func().Params(jen.Id(r).Id(id.Name)).Id("String").Params().String().Block(
			jen.Return(jen.Qual(uuidPkg, "UUID").Call(jen.Id(r)).Dot("String").Call()),
		)
		f.Line()
		f.Commentf("IsZero reports whether %s is the zero %s, which New%s never returns and decoding refuses.", r, id.Name, id.Name)
		f.Func().Params(jen.Id(r).Id(id.Name)).Id("IsZero").Params().Bool().Block(
			jen.Return(jen.Id(r).Op("==").Id(id.Name).Values()),
		)
		f.Line()
		f.Commentf("MarshalText encodes %s in its canonical text form.", r)
		f.Func().Params(jen.Id(r).Id(id.Name)).Id("MarshalText").Params().Params(jen.Index().Byte(), jen.Error()).Block(
			jen.Return(jen.Qual(uuidPkg, "UUID").Call(jen.Id(r)).Dot("MarshalText").Call()),
		)
		f.Line()
		f.Commentf("UnmarshalText decodes %s from its text form, as Parse%s does.", r, id.Name)
		f.Func().Params(jen.Id(r).Op("*").Id(id.Name)).Id("UnmarshalText").Params(jen.Id("text").Index().Byte()).Error().Block(
			jen.List(jen.Id("u"), jen.Err()).Op(":=").Qual(codecPkg, "ParseUUID").Call(jen.Id("text")),
			jen.If(jen.Err().Op("!=").Nil()).Block(
				jen.Return(e.errorf(id.Name+" %q: %w", jen.Id("text"), jen.Err())),
			),
			jen.Op("*").Id(r).Op("=").Id(id.Name).Call(jen.Id("u")),
			jen.Return(jen.Nil()),
		)
	}
}

func (e *emitter) enums(f *jen.File) {
	for _, en := range gen.SortedBy(e.spec.Enums, func(d *gen.Enum) string { return d.Name }) {
		r := recv(en.Name)
		declComment(f, en.Doc, en.Name+" is an enum.")
		f.Type().Id(en.Name).String()
		f.Line()
		f.Commentf("The %s values.", en.Name)
		f.Const().DefsFunc(func(g *jen.Group) {
			for _, v := range en.Values {
				g.Add(comment(v.Doc))
				g.Id(v.GoName).Id(en.Name).Op("=").Lit(v.Value)
			}
		})
		var consts []jen.Code
		for _, v := range en.Values {
			consts = append(consts, jen.Id(v.GoName))
		}
		f.Line()
		f.Commentf("%sValues returns every %s in declaration order.", en.Name, en.Name)
		f.Func().Id(en.Name + "Values").Params().Index().Id(en.Name).Block(
			jen.Return(jen.Index().Id(en.Name).Values(consts...)),
		)
		f.Line()
		f.Commentf("Valid reports whether %s is one of the declared %s values.", r, en.Name)
		f.Func().Params(jen.Id(r).Id(en.Name)).Id("Valid").Params().Bool().Block(
			jen.Switch(jen.Id(r)).Block(jen.Case(consts...).Block(jen.Return(jen.True()))),
			jen.Return(jen.False()),
		)
		f.Line()
		f.Commentf("MarshalText encodes %s, refusing a value outside %s.", r, en.Name)
		f.Func().Params(jen.Id(r).Id(en.Name)).Id("MarshalText").Params().Params(jen.Index().Byte(), jen.Error()).Block(
			jen.If(jen.Op("!").Id(r).Dot("Valid").Call()).Block(
				jen.Return(jen.Nil(), e.errorf(en.Name+" %q: %w", jen.String().Call(jen.Id(r)), jen.Id("ErrInvalidEnum"))),
			),
			jen.Return(jen.Index().Byte().Call(jen.Id(r)), jen.Nil()),
		)
		f.Line()
		f.Commentf("UnmarshalText decodes %s, refusing a value outside %s.", r, en.Name)
		f.Func().Params(jen.Id(r).Op("*").Id(en.Name)).Id("UnmarshalText").Params(jen.Id("text").Index().Byte()).Error().Block(
			jen.Id("value").Op(":=").Id(en.Name).Call(jen.Id("text")),
			jen.If(jen.Op("!").Id("value").Dot("Valid").Call()).Block(
				jen.Return(e.errorf(en.Name+" %q: %w", jen.Id("text"), jen.Id("ErrInvalidEnum"))),
			),
			jen.Op("*").Id(r).Op("=").Id("value"),
			jen.Return(jen.Nil()),
		)
	}
}

func (e *emitter) records(f *jen.File) {
	plan := e.passes()
	for _, r := range gen.SortedBy(e.spec.Records, func(d *gen.Record) string { return d.Name }) {
		declComment(f, r.Doc, r.Name+" is a record.")
		f.Type().Id(r.Name).Struct(structFields(r.Fields)...)
		marshalEmpty(f, r.Name, r.Fields)
		if plan.recursive[r.Name] {
			e.unmarshalOnePass(f, r)
		} else {
			e.unmarshal(f, r.Name, r.Fields, nil, nil)
		}
	}
	for _, p := range plan.own {
		e.onePassDecoder(f, p, plan.records)
	}
}

// unmarshalOnePass emits the UnmarshalJSON of a recursive record: its
// one-pass decoder over data, so a record nested in it is read in place
// rather than checked and decoded again by encoding/json at each depth,
// which takes time quadratic in the depth (decision 0157). It refuses what
// that decoder refuses, and sets every wire field, as the shadow struct of
// another record's UnmarshalJSON does.
func (e *emitter) unmarshalOnePass(f *jen.File, r *gen.Record) {
	rv := recv(r.Name)
	body := []jen.Code{
		jen.Id("dec").Op(":=").Qual(codecPkg, "NewDecoder").Call(jen.Id("data")),
		jen.Var().Id("wire").Id(r.Name),
		jen.If(jen.Err().Op(":=").Id("decode"+r.Name).Call(jen.Id("dec"), jen.Op("&").Id("wire")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.If(jen.Err().Op(":=").Id("dec").Dot("End").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	}
	for _, fd := range gen.WireFields(r.Fields) {
		body = append(body, jen.Id(rv).Dot(fd.GoName).Op("=").Id("wire").Dot(fd.GoName))
	}
	body = append(body, jen.Return(jen.Nil()))
	f.Line()
	f.Commentf("UnmarshalJSON decodes %s in one pass, refusing a missing required field or an ambiguous key.", rv)
	f.Func().Params(jen.Id(rv).Op("*").Id(r.Name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(body...)
}

// emptyCollections are the fields of lists and maps that are not optional:
// JSON has an empty one for them, and TypeScript, which has no nil, always
// writes it, so Go writes nil as empty too ([] or {}), never as null.
func emptyCollections(fields []*gen.Field) []*gen.Field {
	var out []*gen.Field
	for _, fd := range gen.WireFields(fields) {
		if !fd.Optional && fd.Type.Collection() && !fd.Type.IsBytes() {
			out = append(out, fd)
		}
	}
	return out
}

// marshalEmpty emits MarshalJSON for a struct with emptyCollections: the
// struct as encoding/json writes it, with nil lists and maps made empty.
func marshalEmpty(f *jen.File, typeName string, fields []*gen.Field) {
	empty := emptyCollections(fields)
	if len(empty) == 0 {
		return
	}
	r := recv(typeName)
	f.Line()
	f.Commentf("MarshalJSON encodes %s, writing a nil list as [] and a nil map as {}.", r)
	f.Func().Params(jen.Id(r).Id(typeName)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).BlockFunc(func(g *jen.Group) {
		g.Type().Id("plain").Id(typeName)
		emptyDefaults(g, r, empty)
		g.Return(jen.Qual(jsonPkg, "Marshal").Call(jen.Id("plain").Call(jen.Id(r))))
	})
}

// emptyDefaults sets each of fields in r to an empty one when it is nil.
func emptyDefaults(g *jen.Group, r string, fields []*gen.Field) {
	for _, fd := range fields {
		g.If(jen.Id(r).Dot(fd.GoName).Op("==").Nil()).Block(
			jen.Id(r).Dot(fd.GoName).Op("=").Add(goType(fd.Type)).Values(),
		)
	}
}

// structFields renders fields with their docs and JSON tags. Optional fields
// are omitted when zero; Go-only fields never travel.
func structFields(fields []*gen.Field) []jen.Code {
	var out []jen.Code
	for _, fd := range fields {
		tag := fd.JSON
		switch {
		case !fd.Wire():
			tag = "-"
		case fd.Optional:
			tag += ",omitzero"
		}
		field := jen.Id(fd.GoName).Add(goType(fd.Type)).Tag(map[string]string{"json": tag})
		out = append(out, withDoc(doctext.Named(fd.Doc, fd.Name, fd.GoName), field))
	}
	return out
}

// A discCheck is the discriminator a variant's decoder must find.
type discCheck struct {
	json   string
	goName string
	kind   gen.TagKind
	tagVal string // the Go constant holding the variant's tag
	tag    gen.Tag
}

// mismatch is the condition that the decoded discriminator is not the
// variant's tag. A boolean is tested as itself, as Go style (and
// staticcheck's S1002) wants, rather than compared with a constant.
func (d *discCheck) mismatch() *jen.Statement {
	got := jen.Op("*").Id("wire").Dot(d.goName)
	switch {
	case d.kind == gen.TagBool && d.tag.Bool:
		return jen.Op("!").Add(got)
	case d.kind == gen.TagBool:
		return got
	}
	return got.Op("!=").Id(d.tagVal)
}

// unmarshal emits an UnmarshalJSON that refuses input lacking a required
// field, carrying a key twice or a key that differs from a field's only in
// case (and, for a variant, carrying another variant's tag). Types with no
// wire field get none. The method decodes into a shadow struct, whose
// required fields are pointers so that absence shows, checks the keys and
// the values, and then copies the fields over.
func (e *emitter) unmarshal(f *jen.File, typeName string, fields, common []*gen.Field, disc *discCheck) {
	wire := gen.WireFields(common, fields)
	if disc == nil && len(wire) == 0 {
		return
	}
	r := recv(typeName)
	keys := []jen.Code{jen.Lit(e.spec.Package.Name + "." + typeName), jen.Id("data")}
	if disc != nil {
		keys = append(keys, jen.Lit(disc.json))
	}
	for _, fd := range wire {
		keys = append(keys, jen.Lit(fd.JSON))
	}
	body := []jen.Code{
		jen.Var().Id("wire").Struct(shadowFields(disc, wire)...),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("wire")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Err()),
		),
		jen.If(jen.Err().Op(":=").Qual(codecPkg, "CheckKeys").Call(keys...), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Err()),
		),
	}
	body = append(body, e.shadowChecks(typeName, disc, wire)...)
	for _, fd := range wire {
		val := jen.Id("wire").Dot(fd.GoName)
		if gen.WireRequired(fd) {
			val = jen.Op("*").Add(val)
		}
		body = append(body, jen.Id(r).Dot(fd.GoName).Op("=").Add(val))
	}
	body = append(body, jen.Return(jen.Nil()))
	f.Line()
	if disc != nil {
		f.Commentf("UnmarshalJSON decodes %s, refusing another variant's %s, a missing required field or an ambiguous key.", r, disc.json)
	} else {
		f.Commentf("UnmarshalJSON decodes %s, refusing a missing required field or an ambiguous key.", r)
	}
	f.Func().Params(jen.Id(r).Op("*").Id(typeName)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(body...)
}

// shadowFields are the fields of UnmarshalJSON's shadow struct: the
// discriminator, then each wire field, a pointer when it is required.
func shadowFields(disc *discCheck, wire []*gen.Field) []jen.Code {
	var out []jen.Code
	if disc != nil {
		out = append(out, jen.Id(disc.goName).Op("*").Id(string(disc.kind)).Tag(map[string]string{"json": disc.json}))
	}
	for _, fd := range wire {
		t := goType(fd.Type)
		if gen.WireRequired(fd) {
			t = jen.Op("*").Add(t)
		}
		out = append(out, jen.Id(fd.GoName).Add(t).Tag(map[string]string{"json": fd.JSON}))
	}
	return out
}

// shadowChecks are the checks UnmarshalJSON makes on its shadow struct: the
// discriminator present and this variant's, each required field present,
// each terminal-state field holding a terminal state, and each bounded
// field within its bounds.
func (e *emitter) shadowChecks(typeName string, disc *discCheck, wire []*gen.Field) []jen.Code {
	var out []jen.Code
	if disc != nil {
		out = append(out,
			jen.If(jen.Id("wire").Dot(disc.goName).Op("==").Nil()).Block(
				jen.Return(e.missingField(typeName, disc.json)),
			),
			jen.If(disc.mismatch()).Block(
				jen.Return(e.errorf(typeName+": "+disc.json+" is %v, want %v: %w", jen.Op("*").Id("wire").Dot(disc.goName), jen.Id(disc.tagVal), jen.Id("ErrWrongVariant"))),
			),
		)
	}
	for _, fd := range wire {
		if gen.WireRequired(fd) {
			out = append(out, jen.If(jen.Id("wire").Dot(fd.GoName).Op("==").Nil()).Block(
				jen.Return(e.missingField(typeName, fd.JSON)),
			))
		}
	}
	for _, fd := range wire {
		if fd.TerminalOf() != nil {
			out = append(out, e.terminalCheck(typeName, fd, jen.Id("wire").Dot(fd.GoName), gen.WireRequired(fd)))
		}
		out = append(out, e.boundChecks(typeName, fd, jen.Id("wire").Dot(fd.GoName), gen.WireRequired(fd))...)
	}
	return out
}

// terminalCheck is the statement refusing a value of fd, at val, that is
// not a terminal state of its machine; an optional field may be absent
// (empty). deref says val is a pointer, as a required field's is in
// UnmarshalJSON's shadow struct.
func (e *emitter) terminalCheck(typeName string, fd *gen.Field, val *jen.Statement, deref bool) jen.Code {
	cond := jen.Op("!").Add(val.Clone()).Dot("Terminal").Call()
	if !gen.WireRequired(fd) {
		cond = val.Clone().Op("!=").Lit("").Op("&&").Add(cond) // absent is allowed
	}
	if deref {
		val = jen.Op("*").Add(val)
	}
	return jen.If(cond).Block(
		jen.Return(e.errorf(typeName+": "+fd.JSON+" %q is not a terminal state of "+fd.TerminalOf().Name+": %w", val, jen.Id("ErrInvalidEnum"))),
	)
}
